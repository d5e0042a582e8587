"""The agents app's background work (config.celery_app collects every app's `beat.py`)."""

from celery import shared_task

from agents.oauth.services import oauth_expired_purge


@shared_task(acks_late=True)  # idempotent: what it deletes has ended either way
def oauth_purge_task() -> dict[str, int]:
    return oauth_expired_purge()
