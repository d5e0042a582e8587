"""Thin tasks over the social services."""

from celery import shared_task

from social.services.lifecycle import accounts_maintain


@shared_task(acks_late=True)  # idempotent: each warning is sent once
def accounts_maintain_task() -> dict[str, int]:
    return accounts_maintain()
