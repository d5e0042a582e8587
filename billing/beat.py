"""The billing app's periodic tasks (config.celery_app collects every app's `beat.py`)."""

from typing import Any

from celery.schedules import crontab


def entries(settings: Any) -> dict[str, dict[str, Any]]:
    return {
        # Daily, not monthly: a day the workers were down is caught up the next day.
        "billing-replenish-free-plans": {
            "task": "billing.tasks.replenish_free_plans_task",
            "schedule": crontab(minute=5, hour=0),
        },
    }
