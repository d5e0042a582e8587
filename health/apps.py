"""App configuration; records when the process started, for the health probe's uptime, and
subscribes the metrics' counters to the events they count (health/metrics.py)."""

import time

from django.apps import AppConfig

PROCESS_STARTED = time.monotonic()


class HealthConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "health"

    def ready(self) -> None:
        from core import metrics

        if not metrics.enabled():  # nothing recorded: nothing to subscribe
            return
        from aitools.tools import TOOLS
        from health.metrics import generations_counted, records_ended_counted
        from notifications.events import subscribe
        from social.networks import NETWORKS

        # Their series are at zero from the start (core.metrics.known).
        metrics.known(platforms=list(NETWORKS), tools=TOOLS)

        for event in ("post.published", "post.failed"):
            subscribe(event, records_ended_counted)
        for event in ("generation.completed", "generation.failed"):
            subscribe(event, generations_counted)
