"""Thin tasks over the outbox services (notifications/services/outbox.py); all safe to run twice."""

from collections.abc import Sequence

from celery import shared_task

from notifications.services.livefeed import live_purge
from notifications.services.outbox import (
    outbox_dispatch,
    outbox_process,
    outbox_purge,
    outbox_sweep,
)
from notifications.services.webhooks import deliveries_purge, deliveries_send, deliveries_sweep


@shared_task(acks_late=True)  # idempotent: rows are unique per (event, consumer)
def outbox_dispatch_task(sequence: int) -> int:
    return outbox_dispatch(sequence=sequence)


@shared_task(acks_late=True)  # idempotent: a row is claimed by one conditional UPDATE
def outbox_process_task(consumption_id: int) -> str:
    return outbox_process(consumption_id=consumption_id)


@shared_task(acks_late=True)
def outbox_sweep_task() -> dict[str, int]:
    return outbox_sweep()


@shared_task(acks_late=True)
def outbox_purge_task() -> int:
    return outbox_purge()


@shared_task(acks_late=True)  # idempotent: deliveries are claimed by one conditional UPDATE
def webhook_deliver_task(delivery_ids: Sequence[str] = (), delivery_id: str = "") -> dict[str, int]:
    # One turn over whatever is due (owners taking turns). The ids are those of messages queued
    # by earlier releases, still in flight on deploy: their deliveries are due, so sent in turn.
    return deliveries_send()


@shared_task(acks_late=True)
def webhook_sweep_task() -> int:
    return deliveries_sweep()


@shared_task(acks_late=True)
def webhook_purge_task() -> int:
    return deliveries_purge()


@shared_task(acks_late=True)
def livefeed_purge_task() -> int:
    return live_purge()
