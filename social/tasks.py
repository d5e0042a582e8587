"""Thin tasks over the social services, and the scheduler's timer in every worker process."""

from typing import Any

from celery import shared_task, signals

from social.conf import scheduler_config
from social.connections import accounts_maintain, metrics_collect, preflight_run
from social.planning import approval_email_send
from social.publishing import SchedulerTimer, record_processing_continue, scheduler_run

timer = SchedulerTimer()  # one per process (social/publishing/services/timer.py)


@shared_task(autoretry_for=(OSError,), retry_backoff=5, max_retries=3)
def approval_email_task(*, client_id: str, url: str) -> bool:
    return approval_email_send(client_id=client_id, url=url)


@shared_task(acks_late=True)  # idempotent: each warning is sent once
def accounts_maintain_task() -> dict[str, int]:
    return accounts_maintain()


@shared_task(acks_late=True, soft_time_limit=1500, time_limit=1800)  # idempotent: a day's row
def metrics_collect_task() -> dict[str, int]:
    return metrics_collect()


@shared_task(acks_late=True, soft_time_limit=300, time_limit=360)  # idempotent: a day's row
def metrics_refresh_task(record_ids: list[str]) -> dict[str, int]:
    """A collection asked for now (POST /api/social/analytics/refresh): those records only."""
    return metrics_collect(record_ids=record_ids)


@shared_task(acks_late=False)  # a lost run is harmless: the next one checks what is left
def preflight_run_task() -> dict[str, int]:
    return preflight_run()


@shared_task(acks_late=False)  # a lost run is harmless: the next one claims what is due
def scheduler_run_task() -> dict[str, int]:
    report = scheduler_run()
    return {
        "processed": len(report.outcomes),
        "successful": report.successful,
        "reaped": report.reaped,
    }


@shared_task(acks_late=True)  # idempotent: fenced by the record's claim
def record_processing_task(record_id: str, claim: str) -> str:
    """The next look at a video a platform is processing (social.md section 10)."""
    return record_processing_continue(record_id=record_id, claim=claim)


# The timer runs where tasks run: in each process of the prefork pool (the default), or in the
# worker's own process for the solo and thread pools, which start no child processes.
_prefork = True


@signals.worker_init.connect
def _pool_noted(sender: Any = None, **kwargs: Any) -> None:
    global _prefork
    _prefork = "prefork" in str(getattr(sender, "pool_cls", "prefork")).lower()


@signals.worker_process_init.connect
def _timer_started_in_child(**kwargs: Any) -> None:
    if scheduler_config().timer:
        timer.start()


@signals.worker_ready.connect
def _timer_started_in_worker(**kwargs: Any) -> None:
    if scheduler_config().timer and not _prefork:
        timer.start()


@signals.worker_process_shutdown.connect
@signals.worker_shutdown.connect
def _timer_stopped(**kwargs: Any) -> None:
    timer.stop()
