"""Celery application: Redis when REDIS_URL is set, a file-system broker otherwise."""

import importlib
import importlib.util
import os
from typing import Any

from celery import Celery, Task, signals

from core import logs, metrics

# Which settings to load is the one thing read before they are: from the environment.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    timezone="UTC",
    enable_utc=True,
    # A task that hangs is killed; the soft limit lets it record a failure first.
    task_soft_time_limit=240,
    task_time_limit=300,
    # Acknowledge on receipt by default: only tasks written to be idempotent opt into acks_late.
    task_acks_late=False,
    worker_prefetch_multiplier=1,
    result_expires=3600,
    broker_connection_retry_on_startup=True,
    # Celery's Django fixup closes every database connection before and after each task and,
    # with psycopg's pool (PostgreSQL's default here), the whole pool: each task then opened
    # a new pool and new connections, much of a short task's time (docs/performance.md). Its
    # closing is pushed out of reach; _connections_handed_back() below does what a request's
    # end does instead. (An old-style name: the fixup reads this one.)
    CELERY_DB_REUSE_MAX=2**31,
)
app.autodiscover_tasks()


@signals.task_prerun.connect
@signals.task_postrun.connect
def _connections_handed_back(sender: Task | None = None, **kwargs: object) -> None:  # type: ignore[type-arg]
    """Around each task, as around each request: a pooled connection goes back to its pool (the
    pool stays), a kept one is closed when broken or older than CONN_MAX_AGE. Not for a task
    run in-process (eagerly), whose caller's connection and transaction are still in use."""
    if sender is not None and getattr(sender.request, "is_eager", False):
        return
    from django.db import close_old_connections

    close_old_connections()


# The queuing request's id travels in each task's headers and its log lines carry it (core.logs).
signals.before_task_publish.connect(logs.task_headers_stamped, weak=False)
signals.task_prerun.connect(logs.task_context_bound, weak=False)
signals.task_postrun.connect(logs.task_context_released, weak=False)


@signals.setup_logging.connect
def _logging_as_django(loglevel: int | str | None = None, **kwargs: object) -> None:
    """Workers and beat log as the server does (LOGGING: LOG_FORMAT, the request id), not in
    Celery's own format; Celery's own loggers at the level the command line gave (--loglevel),
    ours at LOG_LEVEL."""
    import logging

    from django.conf import settings

    logs.configure(settings.LOGGING)  # in JSON mode, the start banners become JSON lines too
    if loglevel:
        logging.getLogger("celery").setLevel(loglevel)


@signals.worker_init.connect
def _metrics_of_workers(sender: Any = None, **kwargs: object) -> None:
    """A worker's processes write their numbers under the metrics folder of workers, emptied
    now, before the pool processes start (core.metrics). The worker that reads only webhook
    deliveries' queue has a folder of its own: both run on one host, and each start would
    empty the other's."""
    from django.conf import settings

    queues = set(sender.app.amqp.queues.consume_from) if sender is not None else set()
    metrics.process_prepared("webhooks" if queues == {settings.WEBHOOK_QUEUE} else "worker")


_heartbeat = None


@signals.worker_ready.connect
def _heartbeat_started(sender: object = None, **kwargs: object) -> None:
    """The worker says it is alive every few seconds (core/heartbeats.py: the status page)."""
    global _heartbeat
    from core.heartbeats import Heartbeat

    _heartbeat = Heartbeat()
    controller = getattr(sender, "controller", None)
    _heartbeat.start(
        name=str(getattr(sender, "hostname", "") or "celery"),
        processes=int(getattr(controller, "concurrency", 0) or 0),
    )


@signals.worker_shutdown.connect
def _heartbeat_stopped(**kwargs: object) -> None:
    if _heartbeat is not None:
        _heartbeat.stop()


@app.on_after_finalize.connect
def _embedded_broker_prepared(sender: Celery, **kwargs: object) -> None:
    """The file-system broker and result backend need their folders before the first task,
    and its exchange tables written by one process at a time (config/broker.py)."""
    from django.conf import settings

    from config import broker

    if not settings.REDIS_URL:
        for name in ("queue", "processed", "results", "control"):
            (settings.CELERY_DATA_DIR / name).mkdir(parents=True, exist_ok=True)
        with sender.connection_for_write() as connection:
            broker.bindings_declared(connection, sender.amqp.queues.values())


@app.on_after_configure.connect
def _printed_lines_logged(sender: Celery, **kwargs: object) -> None:
    """JSON logs: what a worker or beat prints from here on, before its logging is set up
    (beat's first line) included, becomes JSON lines too (core.logs). Not at import: this
    module is imported while the settings themselves load."""
    logs.printed_lines_logged()


@app.on_after_configure.connect
def _beat_from_apps(sender: Celery, **kwargs: object) -> None:
    """Each of our apps declares its periodic tasks in its own `beat.py` (`entries(settings)`);
    they are put together here, in PROJECT_APPS order."""
    from django.conf import settings

    for name in settings.PROJECT_APPS:
        if importlib.util.find_spec(f"{name}.beat") is not None:
            sender.conf.beat_schedule.update(
                importlib.import_module(f"{name}.beat").entries(settings)
            )
