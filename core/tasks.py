"""Queueing work for the Celery worker, with one policy for a broker outage; the core's own
periodic task.

Work is queued when the writer's transaction commits (a task never runs for a rollback). If
the broker cannot take it (Redis down), the task runs here, in this process, instead of the
request failing after its data was committed: a magic-link e-mail is still sent, a queued AI
call still completes (or refunds). Every task queued through here is idempotent, so running it
in-process and, later, a redelivery cannot do the work twice. Logged as a warning each time.
"""

import logging
from typing import Any

from celery import Task, current_app, shared_task
from django.db import transaction
from kombu.exceptions import OperationalError
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# Fail fast: a broker that refuses connections is not waited on for long inside a request.
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2}


def enqueue(task: Task, *, countdown: float | None = None, **kwargs: Any) -> None:  # type: ignore[type-arg]
    """Queue `task(**kwargs)`, to run `countdown` seconds from now when given."""
    try:
        options: dict[str, Any] = {} if countdown is None else {"countdown": countdown}
        task.apply_async(kwargs=kwargs, retry=True, retry_policy=PUBLISH_RETRY_POLICY, **options)
    except (OperationalError, RedisError, OSError):
        logger.warning(
            "Task queue unavailable; running %s in this process instead", task.name, exc_info=True
        )
        task.apply(kwargs=kwargs)


def task_named(name: str) -> Task:  # type: ignore[type-arg]
    """The registered task called `name`: how a service queues its app's task without
    importing the tasks module, which imports the service (the app's AppConfig.ready()
    imports its tasks, so they are registered in every process)."""
    return current_app.tasks[name]


def enqueue_on_commit(task: Task, *, countdown: float | None = None, **kwargs: Any) -> None:  # type: ignore[type-arg]
    """Queue `task(**kwargs)` once the current transaction commits (now, outside one)."""
    transaction.on_commit(lambda: enqueue(task, countdown=countdown, **kwargs))


@shared_task(acks_late=True)  # idempotent: deletes what is past its retention
def purge_idempotency_records_task() -> int:
    from core.idempotency import idempotency_purge

    return idempotency_purge()
