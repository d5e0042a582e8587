"""The accounts app's periodic tasks (config.celery_app collects every app's `beat.py`)."""

from typing import Any

from celery.schedules import crontab


def entries(settings: Any) -> dict[str, dict[str, Any]]:
    return {
        "accounts-flush-expired-tokens": {
            "task": "accounts.tasks.flush_expired_tokens_task",
            "schedule": crontab(minute=17, hour=3),
        },
        "accounts-purge-magic-links": {
            "task": "accounts.tasks.purge_magic_links_task",
            "schedule": crontab(minute=41),
        },
    }
