"""`run_scheduler [--loop] [--dry-run]`: publish what is due now (beat does it too); with
--loop, also the timer that publishes each record at its time (as every Celery worker does)."""

import signal
import time
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from social.conf import scheduler_config
from social.publishing import SchedulerTimer, scheduler_run
from social.selectors import records_due


class Command(BaseCommand):
    help = "Run the social scheduler once, or every SCHEDULER_INTERVAL_SECONDS with --loop."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--loop", action="store_true", help="keep running until stopped")
        parser.add_argument(
            "--dry-run", action="store_true", help="list what is due; change nothing"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["dry_run"]:
            due = records_due(limit=scheduler_config().batch_size)
            for record in due:
                self.stdout.write(
                    f"{record.due_at:%Y-%m-%d %H:%M:%S} {record.provider:<10} {record.id} "
                    f"post {record.post_id} attempts {record.attempts}"
                )
            self.stdout.write(f"{len(due)} records due")
            return
        stopping = False

        def stop(signum: int, frame: Any) -> None:
            nonlocal stopping
            stopping = True

        timer = SchedulerTimer()
        if options["loop"]:
            signal.signal(signal.SIGTERM, stop)
            signal.signal(signal.SIGINT, stop)
            if scheduler_config().timer:
                timer.start()
        try:
            self._periodic(loop=options["loop"], stopping=lambda: stopping)
        finally:
            timer.stop()

    def _periodic(self, *, loop: bool, stopping: Callable[[], bool]) -> None:
        """The safety net: a run every SCHEDULER_INTERVAL_SECONDS (once without --loop)."""
        interval = max(scheduler_config().interval_seconds, 1.0)
        while True:
            report = scheduler_run()
            self.stdout.write(
                f"{report.executed_at:%H:%M:%S} processed {len(report.outcomes)}, "
                f"published {report.successful}, failed or retrying {report.failed}, "
                f"reclaimed {report.reaped}"
            )
            if not loop or stopping():
                return
            deadline = time.monotonic() + interval
            while not stopping() and time.monotonic() < deadline:
                time.sleep(0.2)
            if stopping():
                return
