"""The web server's entry point: gunicorn imports it in each worker (`make run` starts it without
--preload, so after the fork) and `runserver` through WSGI_APPLICATION.

With WEB_WARM_UP on (the default), each worker loads the encoder and the other models a question
uses before it serves its first request (citations/warm.py), so the first question costs what
the others do. Only this module does it: management commands, Celery workers and the test suite's
live server never import it. A model that cannot load is logged and the worker serves anyway: the search reports
its own error, and the admin and the viewer keep working.
"""

import logging
import os

from django.conf import settings
from django.core.wsgi import get_wsgi_application

from ragsite.embedded import local_services_start

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ragsite.settings")
local_services_start()  # before the first connection: the settings only name the embedded server
application = get_wsgi_application()

if settings.WEB_WARM_UP:
    from citations.warm import warm_for_serving

    try:
        warm_for_serving()
    except Exception:  # whatever it is, the worker still serves the pages that need no model
        logging.getLogger(__name__).exception("web worker warm-up failed; the first question will load the models")
