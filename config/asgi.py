"""The application the server runs (`config.serve`): one port, two ways into Django.

Ordinary API requests are short and synchronous: they go to Django's WSGI handler on a fixed
pool of threads (a2wsgi), exactly as a threaded WSGI server would run them, so their thread,
database connection and health-probe connection are reused from one request to the next.
Long-lived streams (the live feed's Server-Sent Events) go to the live feed's own ASGI
application (notifications/api/stream.py), which waits on the event loop and holds no
thread and no database connection while it waits. Not through Django's ASGI handler: it costs
a thread per open request (its per-request thread-sensitive context, for the request signals
and sync middleware), and it made every ordinary request slower (measured: docs/performance.md).
"""

import os
from typing import Any

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.wsgi import get_wsgi_application

# Which settings to load is the one thing read before they are: from the environment.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

_requests_app = get_wsgi_application()  # sets Django up before the live feed is imported

from notifications.api.stream import stream_app  # noqa: E402

# Paths served asynchronously; everything else is a short request for the thread pool.
ASYNC_PATHS = frozenset({"/api/events/stream", "/api/v1/events/stream"})

# Requests in flight per process (WEB_THREADS); a request beyond them waits for a free thread.
_requests = WSGIMiddleware(_requests_app, workers=settings.WEB_THREADS)  # type: ignore[arg-type]


# Typed loosely: Django and a2wsgi each declare the ASGI callables in their own incompatible way.
async def application(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "http" and scope["path"] in ASYNC_PATHS:
        await stream_app(scope, receive, send)
    else:
        await _requests(scope, receive, send)
