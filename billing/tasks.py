"""Billing tasks (scheduled in config.celery_app)."""

from celery import shared_task
from django.utils import timezone

from billing.services.credits import free_plans_replenish


@shared_task(acks_late=True)  # idempotent per user and month: a redelivery replenishes nobody twice
def replenish_free_plans_task() -> int:
    return free_plans_replenish(today=timezone.now().date())
