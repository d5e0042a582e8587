"""Thin tasks over the social services."""

from celery import shared_task

from social.services.analytics import metrics_collect
from social.services.scheduler import scheduler_run
from social.services.upkeep import accounts_maintain


@shared_task(acks_late=True)  # idempotent: each warning is sent once
def accounts_maintain_task() -> dict[str, int]:
    return accounts_maintain()


@shared_task(acks_late=True, soft_time_limit=1500, time_limit=1800)  # idempotent: a day's row
def metrics_collect_task() -> dict[str, int]:
    return metrics_collect()


@shared_task(acks_late=False)  # a lost run is harmless: the next one claims what is due
def scheduler_run_task() -> dict[str, int]:
    report = scheduler_run()
    return {"processed": len(report.outcomes), "successful": report.successful,
            "reaped": report.reaped}  # fmt: skip
