"""Webhooks: staff-registered URLs told of document events (indexed, failed, deleted).

`events` records a delivery per endpoint in the transaction that changed the document (so a
rolled-back change sends nothing), `delivery` POSTs it from the worker once that commits and
retries with backoff, `signing` signs it as Standard Webhooks does. This module imports nothing.
"""
