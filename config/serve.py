"""The one way the API is served: uvicorn on `config.asgi` (`python -m config.serve`).

`make run`, the Docker image, the benches and the tests that need a real server all start it
here, so they measure and test what production runs. ASGI because the live feed streams
Server-Sent Events, which must not hold a worker thread each (the stream is its own ASGI
application); ordinary requests run through Django's WSGI handler on a fixed thread pool
(config/asgi.py), and PostgreSQL connections come from psycopg's pool.

Settings (config/settings/base.py, "Serving", read from the environment): HOST (127.0.0.1),
PORT (8000), WEB_CONCURRENCY (worker processes, 2), WEB_THREADS (request threads in each, 16:
config/asgi.py), FORWARDED_ALLOW_IPS (proxies whose X-Forwarded-Proto is trusted, none); the
access log is the application's (ACCESS_LOG, LOG_FORMAT). They are read once the settings have
loaded, which the server does first (`settings_refused`).
"""

import copy
import logging
import os
import re
import sys
from typing import Any

import uvicorn
from uvicorn.config import LOGGING_CONFIG

GRACEFUL_SHUTDOWN_SECONDS = 10  # a deploy waits this long for requests in flight, then closes
KEEP_ALIVE_SECONDS = 75  # longer than common load balancers' idle timeout (60 s)


# Query values that open something (a live-feed ticket) or say what a user read (a stream's
# resume point) never reach the access log.
SECRET_QUERY = re.compile(r"(?i)([?&](?:ticket|lasteventid|token)=)[^&\s]*")


def redact_query(path: str) -> str:
    return SECRET_QUERY.sub(r"\1[redacted]", path)


class RedactedQueryFilter(logging.Filter):
    """uvicorn's access log line, with the secret query values redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], redact_query(args[2]), *args[3:])
        return True


def log_config() -> dict[str, Any]:
    """uvicorn's own lines (start, stop, errors) in the application's LOG_FORMAT."""
    from django.conf import settings

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact_query"] = {"()": "config.serve.RedactedQueryFilter"}
    config["handlers"]["access"]["filters"] = ["redact_query"]
    if settings.LOG_FORMAT == "json":
        for name in ("default", "access"):
            config["formatters"][name] = {"()": "core.logs.JsonFormatter"}
    return config


def settings_refused() -> str | None:
    """Load the settings and the apps here, once, before any worker process starts: refused
    settings then stop the server with their message and a non-zero exit, instead of each
    worker dying on them and being restarted forever while the container looks alive."""
    # Which settings to load is the one thing read before they are: from the environment (the
    # worker processes uvicorn starts inherit it and load the same ones, config/asgi.py).
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")
    import django
    from django.core.exceptions import ImproperlyConfigured

    try:
        django.setup()
    except ImproperlyConfigured as error:
        return str(error)
    return None


def main() -> None:
    if refused := settings_refused():
        print(refused, file=sys.stderr)  # noqa: T201 (the operator's one message)
        sys.exit(1)
    from django.conf import settings

    from core import metrics

    # The server's processes write their numbers under the web folder, emptied now.
    metrics.process_prepared("web")
    uvicorn.run(
        "config.asgi:application",
        host=settings.SERVER_HOST,
        port=settings.SERVER_PORT,
        workers=settings.WEB_CONCURRENCY,
        loop="uvloop",
        http="httptools",
        # config.asgi answers the lifespan protocol itself: the MCP transport runs for the
        # server's lifetime.
        lifespan="on",
        proxy_headers=bool(settings.FORWARDED_ALLOW_IPS),
        forwarded_allow_ips=settings.FORWARDED_ALLOW_IPS or None,
        # The application writes each request's access line (ACCESS_LOG), with its id, route
        # and user (core/api/access.py); uvicorn's own would say the same again without them.
        access_log=False,
        log_config=log_config(),
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        server_header=False,
    )


if __name__ == "__main__":
    main()
