"""Celery application: Redis when REDIS_URL is set, a file-system broker otherwise."""

import os

from celery import Celery, Task, signals
from celery.schedules import crontab

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
    # a new pool and new connections, half the time of a short task (bench/webhooks.py). Its
    # closing is pushed out of reach; _connections_handed_back() below does what a request's
    # end does instead. (An old-style name: the fixup reads this one.)
    CELERY_DB_REUSE_MAX=2**31,
    beat_schedule={
        "accounts-flush-expired-tokens": {
            "task": "accounts.tasks.flush_expired_tokens_task",
            "schedule": crontab(minute=17, hour=3),
        },
        # Daily, not monthly: a day the workers were down is caught up the next day.
        "billing-replenish-free-plans": {
            "task": "billing.tasks.replenish_free_plans_task",
            "schedule": crontab(minute=5, hour=0),
        },
        "aitools-fail-stale-generations": {
            "task": "aitools.tasks.fail_stale_generations_task",
            "schedule": crontab(minute="*/5"),
        },
        # Events whose dispatch was never queued or whose consumer row is due or abandoned.
        "notifications-outbox-sweep": {
            "task": "notifications.tasks.outbox_sweep_task",
            "schedule": 60.0,
        },
        "notifications-outbox-purge": {
            "task": "notifications.tasks.outbox_purge_task",
            "schedule": crontab(minute=23, hour=4),
        },
        # Expiry warnings, renewals and Mastodon limits: once a day.
        "social-accounts-maintain": {
            "task": "social.tasks.accounts_maintain_task",
            "schedule": crontab(minute=35, hour=2),
        },
        # Published posts' counters, for 30 days after publishing.
        "social-metrics-collect": {
            "task": "social.tasks.metrics_collect_task",
            "schedule": crontab(minute=50, hour="*/6"),
        },
        "accounts-purge-idempotency-records": {
            "task": "accounts.tasks.purge_idempotency_records_task",
            "schedule": crontab(minute=11),
        },
        # Webhook retries that are due (the first comes 5 s after a failure).
        "notifications-webhook-sweep": {
            "task": "notifications.tasks.webhook_sweep_task",
            "schedule": 5.0,
            "options": {"expires": 5.0},
        },
        "notifications-webhook-purge": {
            "task": "notifications.tasks.webhook_purge_task",
            "schedule": crontab(minute=29, hour=4),
        },
        # The live feed keeps an hour of events for reconnects.
        "notifications-livefeed-purge": {
            "task": "notifications.tasks.livefeed_purge_task",
            "schedule": crontab(minute="*/10"),
        },
        "accounts-purge-magic-links": {
            "task": "accounts.tasks.purge_magic_links_task",
            "schedule": crontab(minute=41),
        },
    },
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


@app.on_after_finalize.connect
def _make_local_folders(sender: Celery, **kwargs: object) -> None:
    """The file-system broker and result backend need their folders before the first task."""
    from django.conf import settings

    if not settings.REDIS_URL:
        for name in ("queue", "processed", "results", "control"):
            (settings.CELERY_DATA_DIR / name).mkdir(parents=True, exist_ok=True)


@app.on_after_configure.connect
def _scheduler_beat(sender: Celery, **kwargs: object) -> None:
    """The social scheduler every SCHEDULER_INTERVAL_SECONDS (0: off, a cron runner calls the
    endpoint instead). A run that waited longer than one interval in the queue is dropped:
    the next one claims whatever is due."""
    from django.conf import settings

    interval = float(settings.SCHEDULER_INTERVAL_SECONDS)
    if interval > 0:
        sender.conf.beat_schedule["social-scheduler-run"] = {
            "task": "social.tasks.scheduler_run_task",
            "schedule": interval,
            "options": {"expires": interval},
        }
