"""The core's periodic tasks (config.celery_app collects every app's `beat.py`)."""

from typing import Any

from celery.schedules import crontab


def entries(settings: Any) -> dict[str, dict[str, Any]]:
    return {
        "core-purge-idempotency-records": {
            "task": "core.tasks.purge_idempotency_records_task",
            "schedule": crontab(minute=11),
        },
    }
