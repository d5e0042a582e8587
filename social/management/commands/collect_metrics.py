"""`collect_metrics`: read today's counters of every post published in the last 30 days."""

from typing import Any

from django.core.management.base import BaseCommand

from social.connections import metrics_collect


class Command(BaseCommand):
    help = "Collect analytics of records published in the last 30 days (beat does it too)."

    def handle(self, *args: Any, **options: Any) -> None:
        done = metrics_collect()
        failed = {k.split(":", 1)[1]: v for k, v in done.items() if k.startswith("failed:")}
        self.stdout.write(
            f"{done.get('collected', 0)} of {done['records']} records collected"
            + (f"; failed by platform: {failed}" if failed else "")
        )
