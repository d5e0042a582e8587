"""Punctual publishing: in every worker process, a timer that sleeps until the next record is
due and attempts it then (social.md section 5, "On time"; docs/social.md, "The timer").

The timer is a thread of its own in each Celery worker process (started when the process
starts: social/tasks.py) and in `run_scheduler --loop`. It reads when the next waiting record
is due (one row of the scheduler's partial index), sleeps until then, at most
SCHEDULER_TICK_SECONDS (a record scheduled meanwhile for sooner is seen at the next look),
then claims and attempts what is due, a small batch at a time, until nothing is. Every worker
process does the same, so the records due at one moment are shared out among all of them, on
every machine, by the claim itself (`records_claim`: FOR UPDATE SKIP LOCKED on PostgreSQL, a
conditional UPDATE on SQLite): any number of timers, and the periodic run beside them, attempt
each record at most once. The timer holds no state of its own: a record moved, cancelled,
deleted, or whose account or user went away, is simply not due or not claimable when the
timer looks, and a timer that dies with its process loses nothing (its claimed records come
back through their lease; the periodic run, SCHEDULER_INTERVAL_SECONDS, is the safety net).
"""

import logging
import threading
import time
from datetime import datetime

from django.db import close_old_connections, connection
from django.utils import timezone

from core import metrics
from social.conf import scheduler_config
from social.models import ScheduledRecord
from social.publishing.services.attempts import records_attempt
from social.publishing.services.scheduler import records_claim, records_reap
from social.selectors import records_next_due

logger = logging.getLogger(__name__)


def timer_pass(*, stop: threading.Event | None = None, reap: bool = True) -> float:
    """Attempt whatever is due, a batch at a time, until nothing is (or `stop` is set); the
    seconds to sleep before the next look."""
    if reap:
        records_reap()

    def claim() -> tuple[list[ScheduledRecord], datetime]:
        now = timezone.now()
        if stop is not None and stop.is_set():
            return [], now
        return records_claim(limit=scheduler_config().timer_batch, now=now), now

    # The next batch is claimed while the last calls of this one are in flight (refill): a
    # burst's calls never wait for the claims in between.
    claimed, now = claim()
    outcomes = records_attempt(
        claimed, concurrency=scheduler_config().concurrency, claimed_at=now, refill=claim
    )
    metrics.scheduler_attempted((outcome.provider, outcome.status) for outcome in outcomes)
    due = records_next_due()
    config = scheduler_config()
    if due is None:
        return config.tick_seconds
    wait = (due - timezone.now()).total_seconds()
    return max(config.timer_min_sleep_seconds, min(config.tick_seconds, wait))


class SchedulerTimer:
    """The timer's thread; `start()` once per process, `stop()` to end it."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="scheduler-timer", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        last_reap = 0.0
        self._stop.wait(scheduler_config().timer_startup_delay_seconds)
        while not self._stop.is_set():
            reap = time.monotonic() - last_reap >= scheduler_config().timer_reap_every_seconds
            try:
                sleep = timer_pass(stop=self._stop, reap=reap)
                if reap:
                    last_reap = time.monotonic()
            except Exception:
                logger.exception("Scheduler timer: a pass failed; trying again shortly")
                sleep = scheduler_config().timer_error_pause_seconds
            finally:
                close_old_connections()
            self._stop.wait(sleep)
        connection.close()
