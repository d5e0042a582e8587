"""The notifications app's periodic tasks (config.celery_app collects every app's `beat.py`)."""

from typing import Any

from celery.schedules import crontab


def entries(settings: Any) -> dict[str, dict[str, Any]]:
    return {
        # Events whose dispatch was never queued or whose consumer row is due or abandoned.
        "notifications-outbox-sweep": {
            "task": "notifications.tasks.outbox_sweep_task",
            "schedule": 60.0,
        },
        "notifications-outbox-purge": {
            "task": "notifications.tasks.outbox_purge_task",
            "schedule": crontab(minute=23, hour=4),
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
    }
