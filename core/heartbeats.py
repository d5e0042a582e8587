"""Workers' heartbeats: each Celery worker's main process says every HEARTBEAT_SECONDS that it
is alive (one row per worker, updated in place), so that the admin's status page and /metrics
can tell how many workers were seen in the last minute, whatever the broker (docs/operations.md).
A worker that stops cleanly removes its row; one that dies stops being seen."""

import logging
import os
import threading
from datetime import timedelta

from django.db import close_old_connections
from django.utils import timezone

from core.models import WorkerHeartbeat

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 15.0
SEEN_WITHIN = timedelta(minutes=1)  # "seen lately": four heartbeats
FORGET_AFTER = timedelta(days=1)  # rows of workers gone this long are deleted


def heartbeat_write(*, name: str, processes: int, started_at: object) -> None:
    now = timezone.now()
    WorkerHeartbeat.objects.update_or_create(
        name=name[:255],
        defaults={
            "pid": os.getpid(),
            "processes": processes,
            "started_at": started_at,
            "seen_at": now,
        },
    )
    WorkerHeartbeat.objects.filter(seen_at__lt=now - FORGET_AFTER).delete()


def heartbeat_remove(*, name: str) -> None:
    WorkerHeartbeat.objects.filter(name=name[:255], pid=os.getpid()).delete()


class Heartbeat:
    """The thread that writes one worker's heartbeat; `start()` once, `stop()` at shutdown."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.name = ""

    def start(self, *, name: str, processes: int) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self.name = name
        self._stop.clear()
        started_at = timezone.now()
        self._thread = threading.Thread(
            target=self._run, args=(processes, started_at), name="heartbeat", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join(5)
        self._thread = None
        try:
            heartbeat_remove(name=self.name)
        except Exception:
            logger.warning("The worker's heartbeat row could not be removed", exc_info=True)
        finally:
            close_old_connections()

    def _run(self, processes: int, started_at: object) -> None:
        while not self._stop.is_set():
            try:
                heartbeat_write(name=self.name, processes=processes, started_at=started_at)
            except Exception:  # the database restarting: the next beat tries again
                logger.warning("Worker heartbeat not written", exc_info=True)
            finally:
                close_old_connections()
            self._stop.wait(HEARTBEAT_SECONDS)
