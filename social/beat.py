"""The social hub's periodic tasks (config.celery_app collects every app's `beat.py`)."""

from typing import Any

from celery.schedules import crontab

from social.conf import scheduler_config


def entries(settings: Any) -> dict[str, dict[str, Any]]:
    schedule: dict[str, dict[str, Any]] = {
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
    }
    # The scheduler every SCHEDULER_INTERVAL_SECONDS (0: off, a cron runner calls the endpoint
    # instead). A run that waited longer than one interval in the queue is dropped: the next
    # one claims whatever is due.
    # The pre-flight check of accounts with posts due in the next 24 hours (each account once
    # in 6 hours: social/connections/services/health.py); 0: off.
    preflight = float(settings.PREFLIGHT_INTERVAL_SECONDS)
    if preflight > 0:
        schedule["social-preflight-run"] = {
            "task": "social.tasks.preflight_run_task",
            "schedule": preflight,
            "options": {"expires": preflight},
        }
    interval = scheduler_config().interval_seconds
    if interval > 0:
        schedule["social-scheduler-run"] = {
            "task": "social.tasks.scheduler_run_task",
            "schedule": interval,
            "options": {"expires": interval},
        }
    return schedule
