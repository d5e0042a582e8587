"""The AI tools' periodic tasks (config.celery_app collects every app's `beat.py`)."""

from typing import Any

from celery.schedules import crontab


def entries(settings: Any) -> dict[str, dict[str, Any]]:
    return {
        "aitools-fail-stale-generations": {
            "task": "aitools.tasks.fail_stale_generations_task",
            "schedule": crontab(minute="*/5"),
        },
    }
