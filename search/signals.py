"""Signals of the search app: apps above it listen (the floors forbid search to call them).

`search_served` is sent by search/api.py once GET /api/search has its result, with `request`,
`result` (the SearchResult), `folder` (the Folder searched within, or None), `filters` (the
other parameters) and `latency_ms`. The question log (citations/apps.py) keeps it.
"""

from django.dispatch import Signal

search_served = Signal()
