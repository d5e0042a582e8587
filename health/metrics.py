"""GET /metrics: every process's recorded numbers (core.metrics) and the gauges read from the
database at scrape time (health.selectors), and the event channel's subscribers that count
records published and AI generations ended (docs/operations.md, "Metrics")."""

import logging
from collections.abc import Iterator
from typing import Any

from django.db import transaction
from django.utils import timezone

import core
from core import metrics
from health import selectors
from notifications import events

logger = logging.getLogger(__name__)

STATE_UP = "Whether the database gauges below could be read (0: the database is unreachable)."


class StateCollector:
    """Gauges read at scrape time: the same for every process, so read once, here."""

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        build = GaugeMetricFamily("fgp_build_info", "The running version.", labels=["version"])
        build.add_metric([core.__version__], 1)
        yield build
        try:
            state = selectors.backlogs(now=timezone.now())
        except Exception:  # the database is down: say so, and serve the recorded numbers
            logger.warning("The database gauges of /metrics could not be read", exc_info=True)
            yield GaugeMetricFamily("fgp_state_up", STATE_UP, value=0)
            return
        yield GaugeMetricFamily("fgp_state_up", STATE_UP, value=1)
        gauges = (
            (
                "fgp_scheduler_records_due",
                "Scheduled records whose time has come, not yet claimed.",
                state.records_due,
            ),
            (
                "fgp_scheduler_oldest_due_seconds",
                "How long the oldest due, unclaimed record has waited past its time.",
                state.records_oldest_due_seconds,
            ),
            (
                "fgp_scheduler_records_publishing",
                "Records claimed, their attempt under way.",
                state.records_publishing,
            ),
            (
                "fgp_webhook_pending_deliveries",
                "Webhook deliveries not yet delivered or failed (retries waiting included).",
                state.webhooks_pending,
            ),
            (
                "fgp_webhook_due_deliveries",
                "Pending webhook deliveries whose attempt is due now.",
                state.webhooks_due,
            ),
            (
                "fgp_webhook_oldest_pending_seconds",
                "How long the oldest due webhook delivery has waited past its time.",
                state.webhooks_oldest_due_seconds,
            ),
            (
                "fgp_outbox_backlog",
                "Outbox events not yet dispatched, plus consumer runs due and not done.",
                state.outbox_undispatched + state.outbox_consumptions_due,
            ),
            (
                "fgp_outbox_lag_seconds",
                "How long the oldest undispatched event or due consumer run has waited.",
                state.outbox_lag_seconds,
            ),
            (
                "fgp_workers_seen",
                "Celery workers whose heartbeat came within the last minute.",
                state.workers_seen,
            ),
        )
        for name, text, value in gauges:
            yield GaugeMetricFamily(name, text, value=value)
        queues = GaugeMetricFamily(
            "fgp_celery_queue_length", "Tasks waiting in the broker, by queue.", labels=["queue"]
        )
        for queue, length in state.queue_lengths.items():
            queues.add_metric([queue], length)
        yield queues


def metrics_text() -> tuple[bytes, str]:
    return metrics.exposition([StateCollector()])


# --- The event channel's subscribers (registered in HealthConfig.ready) ----------------------


def records_ended_counted(emitted: list[events.Event]) -> None:
    """`post.published`, `post.failed`: counted once the emitter's transaction commits."""
    ended = [
        (
            str(event.payload.data["platform"]),
            "published"
            if event.name == "post.published"
            else "unconfirmed"
            if event.payload.context.get("unconfirmed")
            else "failed",
        )
        for event in emitted
    ]
    transaction.on_commit(lambda: metrics.publish_ended(ended))


def generations_counted(emitted: list[events.Event]) -> None:
    """`generation.completed`, `generation.failed`: counted once committed."""
    ended = [
        (
            str(event.payload.data["tool"]),
            "succeeded" if event.name == "generation.completed" else "failed",
        )
        for event in emitted
    ]

    def count() -> None:
        for tool, outcome in ended:
            metrics.ai_generation_ended(tool=tool, outcome=outcome)

    transaction.on_commit(count)
