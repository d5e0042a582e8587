"""Periodic account tasks (scheduled in config.celery_app)."""

from celery import shared_task

from accounts.services.tokens import tokens_flush_expired


@shared_task(acks_late=True)  # idempotent: deleting what is already gone deletes nothing
def flush_expired_tokens_task() -> int:
    return tokens_flush_expired()
