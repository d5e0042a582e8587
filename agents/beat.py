"""The agents app's periodic tasks (config.celery_app collects every app's `beat.py`)."""

from typing import Any

from celery.schedules import crontab


def entries(settings: Any) -> dict[str, dict[str, Any]]:
    if not settings.MCP_ENABLED:
        return {}
    return {
        # Ended consent requests, expired OAuth codes and tokens, clients never used.
        "agents-oauth-purge": {
            "task": "agents.tasks.oauth_purge_task",
            "schedule": crontab(minute=29, hour=3),
        },
    }
