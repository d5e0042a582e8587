"""The application the server runs (`config.serve`): one port, two ways into Django.

Ordinary API requests are short and synchronous: they go to Django's WSGI handler on a fixed
pool of threads (a2wsgi), exactly as a threaded WSGI server would run them, so their thread,
database connection and health-probe connection are reused from one request to the next.
Long-lived streams (the live feed's Server-Sent Events) go to the live feed's own ASGI
application (notifications/api/stream.py), which waits on the event loop and holds no
thread and no database connection while it waits. Not through Django's ASGI handler: it costs
a thread per open request (its per-request thread-sensitive context, for the request signals
and sync middleware), and it made every ordinary request slower (measured: docs/performance.md).
`POST /mcp` (MCP_ENABLED) goes to the agents' MCP server (agents/mcp/server.py), whose
transport keeps a task group for the server's lifetime: the lifespan below runs it.
"""

import contextlib
import os
from typing import Any

from a2wsgi import WSGIMiddleware
from django.conf import settings
from django.core.wsgi import get_wsgi_application

# Which settings to load is the one thing read before they are: from the environment.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

_requests_app = get_wsgi_application()  # sets Django up before the live feed is imported

from agents.mcp.server import PATH as MCP_PATH  # noqa: E402
from agents.mcp.server import mcp_app, mcp_running  # noqa: E402
from notifications.api.stream import stream_app  # noqa: E402

# Paths served asynchronously; everything else is a short request for the thread pool.
ASYNC_PATHS = frozenset({"/api/events/stream", "/api/v1/events/stream"})

# Requests in flight per process (WEB_THREADS); a request beyond them waits for a free thread.
_requests = WSGIMiddleware(_requests_app, workers=settings.WEB_THREADS)  # type: ignore[arg-type]


MCP_PATHS = frozenset({MCP_PATH, f"{MCP_PATH}/"}) if settings.MCP_ENABLED else frozenset()


async def lifespan(receive: Any, send: Any) -> None:
    """ASGI's lifespan protocol: what must run as long as the server does (the MCP
    transport's task group) starts before the first request and stops at shutdown."""
    await receive()  # lifespan.startup
    async with contextlib.AsyncExitStack() as running:
        try:
            if settings.MCP_ENABLED:
                await running.enter_async_context(mcp_running())
        except Exception as error:
            await send({"type": "lifespan.startup.failed", "message": str(error)})
            return
        await send({"type": "lifespan.startup.complete"})
        await receive()  # lifespan.shutdown
    await send({"type": "lifespan.shutdown.complete"})


# Typed loosely: Django and a2wsgi each declare the ASGI callables in their own incompatible way.
async def application(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
    elif scope["type"] == "http" and scope["path"] in ASYNC_PATHS:
        await stream_app(scope, receive, send)
    elif scope["type"] == "http" and scope["path"] in MCP_PATHS:
        await mcp_app(scope, receive, send)
    else:
        await _requests(scope, receive, send)
