"""Log lines an operator can follow: each carries the id of the request it belongs to (and of
the request that queued the task it comes from), in readable text or, with LOG_FORMAT=json,
one JSON object per line (docs/operations.md, "Logs").

The request's context lives in a context variable set by the access middleware
(core/api/access.py) for the request's thread, and by the Celery signal handlers below for a
task: from the `request_id` header a request's task carries (set when the task is queued) or,
for a task run in-process (eagerly, or because the broker was down), from the caller's own.
`RequestContextFilter`, on the handlers, copies it into every record; the formatters write it.
"""

import atexit
import json
import logging
import logging.config
import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from celery import Task

TASK_HEADER = "request_id"  # the Celery message header that carries the queuing request's id
# The contract's fields (contract.md, "Observability"), then the ones some lines add.
FIELDS = ("request_id", "user_id", "method", "route", "status", "duration")
EXTRA_FIELDS = ("path", "client", "task", "task_id", "state")

logger = logging.getLogger(__name__)

# What opens something, wherever it appears in a line (a message, its arguments, a traceback):
# link and stream query values (a magic link's token, a live-feed ticket, an OAuth code),
# JWTs, API keys, Bearer credentials and bot tokens. Each is replaced, the rest of the line kept.
SECRETS = (
    (
        re.compile(
            r"(?i)([?&#](?:token|ticket|code|state|lasteventid|access_token|refresh_token"
            r"|signature|key)=)[^&#\s\"'<>]+"
        ),
        r"\1[redacted]",
    ),
    (re.compile(r"\beyJ[\w-]+\.[\w-]+\.[\w-]+"), "[redacted]"),
    (re.compile(r"\bfgp_[\w-]{8,}"), "fgp_[redacted]"),
    (re.compile(r"(?i)\b(bearer\s+)[\w.~+/=-]{8,}"), r"\1[redacted]"),
    # A Discord webhook's token travels in its URL's path (`/webhooks/{id}/{token}`).
    (re.compile(r"(/webhooks/\d+/)[\w.-]+"), r"\1[redacted]"),
    # A Telegram bot token (the bot's id, a colon, its secret), as the Bot API's URL paths
    # carry it (`/bot<token>/sendMessage`): the id kept, the secret not.
    (re.compile(r"(?<![\d:])(\d{5,20}):[A-Za-z0-9_-]{30,}"), r"\1:[redacted]"),
    # Slack's tokens (bot `xoxb-`, rotating `xoxe.xoxb-`, refresh `xoxe-`), wherever one would
    # appear, and an upload address's path (`/upload/v1/...`: the upload's own credential).
    (re.compile(r"\bxox[a-z](?:\.xox[a-z])?-[\w-]+"), "xox-[redacted]"),
    (re.compile(r"(/upload/v1/)[\w.~%-]+"), r"\1[redacted]"),
)


def redact(text: str) -> str:
    for pattern, replacement in SECRETS:
        text = pattern.sub(replacement, text)
    return text


class RequestContext:
    """What every log line of a request (or of a task it queued) says about it; `route` and
    `status` are filled in once known, the user is looked up when a line is written (`user`:
    after authentication, the request knows it)."""

    __slots__ = ("_user", "method", "path", "request_id", "route", "status", "task", "task_id")

    def __init__(
        self,
        request_id: str,
        *,
        method: str = "",
        path: str = "",
        task: str = "",
        task_id: str = "",
        user: Callable[[], str] | None = None,
    ) -> None:
        self.request_id, self.method, self.path = request_id, method, path
        self.task, self.task_id, self._user = task, task_id, user
        self.route = ""
        self.status: int | None = None

    @property
    def user_id(self) -> str:
        return self._user() if self._user is not None else ""


_context: ContextVar[RequestContext | None] = ContextVar("request_context", default=None)


def current() -> RequestContext | None:
    return _context.get()


def current_request_id() -> str:
    context = _context.get()
    return context.request_id if context is not None else ""


def bind(context: RequestContext | None) -> Any:
    """Make `context` this thread's (a token for `unbind`)."""
    return _context.set(context)


def unbind(token: Any) -> None:
    _context.reset(token)


class RequestContextFilter(logging.Filter):
    """On a handler: every record gets the context's fields (a field the call gave itself in
    `extra` wins), so that both formatters can write them."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = _context.get()
        for name in (*FIELDS, *EXTRA_FIELDS):
            if not hasattr(record, name):
                value = getattr(context, name, None) if context is not None else None
                setattr(record, name, value if value not in ("", None) else None)
        return True


class TextFormatter(logging.Formatter):
    """The default, readable line: `time LEVEL logger [request id] message`; no brackets on a
    line that belongs to no request."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        request_id = getattr(record, "request_id", None)
        if request_id:
            head = f"{self.formatTime(record)} {record.levelname} {record.name} "
            if line.startswith(head):
                line = f"{head}[{request_id}] {line[len(head) :]}"
        return redact(line)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601 to the millisecond), level, logger,
    message, then the request's fields (null when the line belongs to no request), then the
    fields only some lines have (an access line's path and client, a task's name and id),
    and `exception` with the traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created, tz=UTC)
        entry: dict[str, Any] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in FIELDS:
            entry[name] = getattr(record, name, None)
        for name in EXTRA_FIELDS:
            value = getattr(record, name, None)
            if value not in (None, ""):
                entry[name] = value
        if record.exc_info:
            entry["exception"] = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        # The patterns match no quote or backslash: redacting the JSON text keeps it JSON.
        return redact(json.dumps(entry, ensure_ascii=False, default=str))


class PrintedLines:
    """JSON mode: this process's standard output, file descriptor 1, whoever writes to it (a
    print, Celery's banner and shutdown notices written to sys.__stdout__, a child process),
    read back by a thread, each line a record of the `stdout` logger, so the output stays
    JSON lines. The handlers write to stderr, so nothing loops. Lines read before logging is
    configured (Celery beat's first line) wait for it."""

    def __init__(self) -> None:
        read, write = os.pipe()
        sys.stdout.flush()
        self._original = os.dup(1)
        os.dup2(write, 1)
        os.close(write)
        self._lines = os.fdopen(read, encoding="utf-8", errors="replace")
        self._held: list[str] | None = []  # None once logging is configured
        self._lock = threading.Lock()
        self._logger = logging.getLogger("stdout")
        self._reader = threading.Thread(target=self._read, name="stdout-lines", daemon=True)
        self._reader.start()
        atexit.register(self._drained)

    def release(self) -> None:
        """Logging is configured: the lines held until now go out."""
        with self._lock:
            held, self._held = self._held or [], None
        for line in held:
            self._logger.info(line)

    def _read(self) -> None:
        for line in self._lines:
            line = line.rstrip()
            if not line.strip():
                continue
            with self._lock:
                if self._held is not None:
                    self._held.append(line)
                    continue
            self._logger.info(line)

    def _drained(self) -> None:
        """At exit: what was printed last is logged before the process ends."""
        sys.stdout.flush()
        # The pipe's end closes here (unless a child process still holds it): the thread reads
        # to its end. Anything printed later still has a standard output to go to.
        os.dup2(self._original, 1)
        self._reader.join(timeout=5.0)  # at once, unless a child process still holds the pipe


_printed: list[PrintedLines] = []


def printed_lines_logged() -> None:
    """JSON mode: from now on what this process prints goes through logging. Called as early
    as a process knows the settings; once per process (a forked child shares its parent's)."""
    from django.conf import settings

    if settings.LOG_FORMAT == "json" and not _printed:
        _printed.append(PrintedLines())


def configure(config: dict[str, Any]) -> None:
    """LOGGING_CONFIG: Django's dictConfig of LOGGING, what is printed logged in JSON mode.
    Celery's workers and beat call it as well (config/celery_app.py)."""
    logging.config.dictConfig(config)
    printed_lines_logged()
    for printed in _printed:
        printed.release()


# --- Celery: the queuing request's id travels with the task ----------------------------------


def task_headers_stamped(headers: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """`before_task_publish`: the queuing request's (or task's) id goes into the message."""
    request_id = current_request_id()
    if request_id and headers is not None:
        headers.setdefault(TASK_HEADER, request_id)


_task_tokens: dict[str, tuple[Any, float]] = {}


def task_context_bound(task_id: str = "", task: Task | None = None, **kwargs: Any) -> None:  # type: ignore[type-arg]
    """`task_prerun`: the task's log lines carry the id it was queued with; a task run in
    the caller's thread (eagerly) keeps the caller's when it brought none."""
    if task is None:
        return
    request = task.request
    request_id = getattr(request, TASK_HEADER, None) or (request.headers or {}).get(TASK_HEADER)
    outer = _context.get()
    if not request_id and getattr(request, "is_eager", False) and outer is not None:
        request_id = outer.request_id
    context = RequestContext(
        request_id=str(request_id or "")[:128], task=task.name, task_id=task_id
    )
    _task_tokens[task_id] = (_context.set(context), time.monotonic())


def task_context_released(
    task_id: str = "",
    task: Task | None = None,  # type: ignore[type-arg]
    state: str | None = None,
    **kwargs: Any,
) -> None:
    """`task_postrun`: a task queued by a request says it ended (one line: a trail from the
    request to its work), then the context goes back to what it was."""
    bound = _task_tokens.pop(task_id, None)
    if bound is None:
        return
    token, started = bound
    context = _context.get()
    if context is not None and context.request_id and task is not None:
        logger.info(
            "Task %s finished: %s in %.3f s",
            task.name,
            state or "done",
            time.monotonic() - started,
            extra={"duration": round(time.monotonic() - started, 6), "state": state},
        )
    try:
        _context.reset(token)
    except ValueError:  # set in another context (cannot happen in Celery's own flow)
        _context.set(None)
