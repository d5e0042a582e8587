"""AI tasks: async generation, and the sweeper that refunds generations that died."""

from celery import shared_task

from aitools.services import generation_execute_pending, generations_fail_stale


# Not acks_late: a redelivered job after a crash would call the provider twice; a lost job
# is instead failed and refunded by the sweeper below.
@shared_task(soft_time_limit=240, time_limit=300)
def run_generation_task(generation_id: str) -> str:
    generation = generation_execute_pending(generation_id=generation_id)
    return generation.status if generation is not None else "skipped"


@shared_task(acks_late=True)  # idempotent: a failed entry is not failed (or refunded) again
def fail_stale_generations_task() -> int:
    return generations_fail_stale()
