"""Running an AI tool: charge, claim, generate, record; a failure refunds and tells the user.

Order in every call: the view validates (400, nothing charged) -> `generation_start` takes
the credits and records the entry in one transaction (402, nothing generated); the spend's
ledger row names the entry from its insert on, so the ledger stays append-only -> the entry is
claimed, `pending` -> `running`, by one conditional UPDATE that only one caller can win (a
synchronous call creates it `running`; a queued one is claimed by the worker, so a repeated
or concurrent delivery is a no-op) -> the provider is called outside any transaction (no lock
held across the network) -> the result is recorded, or the credits are refunded, in a second
short transaction that only acts on a `running` entry. An entry left `pending` or `running`
by a process that died is failed and refunded by the stale-job sweeper. The scheduler follows
the same pattern for scheduled posts.
"""

import logging
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from aitools.errors import AIProviderFailed, TooManyPendingJobs
from aitools.models import Generation, GenerationStatus, Gig, Proposal
from aitools.providers import get_provider
from aitools.providers.base import Generated, ProviderError
from aitools.tools import (
    TOOLS,
    OutputOffContract,
    input_restore,
    jsonable,
    title_of,
    validate_output,
)
from billing.services.credits import credits_refund, credits_spend
from core.leases import Lease
from core.tasks import enqueue_on_commit
from notifications import events
from notifications.models import NotificationType
from notifications.services.center import NotificationDraft, notify_many

logger = logging.getLogger(__name__)

# A queued entry waits `pending` and is claimed `running` under a lease of
# AI_STALE_AFTER_SECONDS: an entry still running after it died with its worker (the task's hard
# time limit is far shorter) and is failed and refunded, never retried (that would pay twice).
GENERATIONS = Lease(
    Generation,
    seconds=lambda: settings.AI_STALE_AFTER_SECONDS,
    waiting=GenerationStatus.PENDING,
    leased=GenerationStatus.RUNNING,
)


def generation_start(
    *, user: User, tool: str, data: dict[str, Any], is_async: bool = False
) -> Generation:
    """Take the tool's cost and record the entry, in one transaction: `running` for a
    synchronous call (the caller goes on to generate), `pending` for a queued one."""
    spec = TOOLS[tool]
    generation_id = uuid.uuid4()
    now = timezone.now()
    with transaction.atomic():
        # The spend's UPDATE locks the user's row, so the unfinished count below is exact even
        # when one user queues several jobs at once.
        spend = credits_spend(user=user, cost=spec.cost, reference=f"ai:{tool}:{generation_id}")
        if is_async:
            unfinished = Generation.objects.filter(
                user=user,
                status__in=[GenerationStatus.PENDING, GenerationStatus.RUNNING],
                is_async=True,
            ).count()
            if unfinished >= settings.AI_MAX_PENDING_JOBS:
                raise TooManyPendingJobs(details={"pending": unfinished})
        return Generation.objects.create(
            id=generation_id,
            user=user,
            tool=tool,
            title=title_of(tool, data),
            status=GenerationStatus.PENDING if is_async else GenerationStatus.RUNNING,
            started_at=None if is_async else now,
            lease_expires_at=None if is_async else now + timedelta(seconds=GENERATIONS.seconds()),
            credits_charged=spec.cost,
            input=jsonable(data),
            provider=settings.AI_PROVIDER,
            spend=spend,
            is_async=is_async,
        )


def generation_claim(*, generation_id: str) -> Generation | None:
    """`pending` -> `running` in one conditional UPDATE: of any number of callers (a repeated
    or concurrent delivery of the task), exactly one gets the entry; the others get None."""
    now = timezone.now()
    token = GENERATIONS.claim(Generation.objects.filter(pk=generation_id), now=now, started_at=now)
    return GENERATIONS.held(token).first()


def generation_execute(*, generation: Generation) -> Generation:
    """Call the provider for a claimed (`running`) entry and record the outcome. Never raises
    for a provider failure: the entry is failed and refunded instead."""
    data = input_restore(generation.tool, generation.input)
    started = timezone.now()
    try:
        result = get_provider().generate(generation.tool, data)
        # Whichever provider wrote it, only the documented shape reaches a client.
        result = Generated(
            output=validate_output(generation.tool, result.output), tokens_used=result.tokens_used
        )
    except OutputOffContract:
        logger.warning("AI provider answer off contract for generation %s", generation.pk)
        return generation_fail(
            generation=generation, reason="The AI provider returned an invalid answer."
        )
    except ProviderError as exc:
        return generation_fail(generation=generation, reason=str(exc))
    except Exception:
        logger.exception("AI provider crashed on generation %s", generation.pk)
        return generation_fail(generation=generation, reason="The AI provider failed unexpectedly.")
    return generation_complete(
        generation=generation, result=result, seconds=(timezone.now() - started).total_seconds()
    )


def generation_execute_pending(*, generation_id: str) -> Generation | None:
    """The worker's entry: claim a queued entry, then run it. A repeated delivery, or an entry
    the sweeper already failed, finds nothing to claim (calling the provider again would pay
    twice)."""
    generation = generation_claim(generation_id=generation_id)
    return generation_execute(generation=generation) if generation is not None else None


def _record_product(generation: Generation, output: dict[str, Any]) -> None:
    """Store the result as the tool's product (a gig, a proposal), when it has one."""
    product = TOOLS[generation.tool].product
    if product is not None:
        product.model.objects.create(
            user_id=generation.user_id,
            generation=generation,
            **{name: output[name] for name in product.fields},
        )


@transaction.atomic
def generation_complete(*, generation: Generation, result: Generated, seconds: float) -> Generation:
    locked = Generation.objects.select_for_update().get(pk=generation.pk)
    if locked.status != GenerationStatus.RUNNING:
        return locked  # already failed by the stale-job sweeper; its refund stands
    output = jsonable(result.output)
    locked.status = GenerationStatus.SUCCEEDED
    locked.output = output
    locked.tokens_used = result.tokens_used
    locked.completed_at = timezone.now()
    locked.lease_expires_at = locked.claim = None
    locked.save(
        update_fields=[
            "status",
            "output",
            "tokens_used",
            "completed_at",
            "lease_expires_at",
            "claim",
        ]
    )
    _record_product(locked, output)
    events.emit(
        user=locked.user_id,
        payload=events.generation_completed(
            generation_id=str(locked.pk),
            tool=locked.tool,
            output=output,
            tokens_used=result.tokens_used,
            seconds=seconds,
            context={"asynchronous": locked.is_async, "title": locked.title},
        ),
    )
    return locked


@transaction.atomic
def generation_fail(*, generation: Generation, reason: str) -> Generation:
    """Refund the entry's credits (once) and tell the user; an entry that already finished
    is left as it is."""
    locked = Generation.objects.select_for_update().get(pk=generation.pk)
    if locked.status not in (GenerationStatus.PENDING, GenerationStatus.RUNNING):
        return locked
    if locked.spend is not None:
        credits_refund(spend=locked.spend)
    locked.status = GenerationStatus.FAILED
    locked.error = reason[:500]
    locked.completed_at = timezone.now()
    locked.lease_expires_at = locked.claim = None
    locked.save(update_fields=["status", "error", "completed_at", "lease_expires_at", "claim"])
    events.emit(
        user=locked.user_id,
        payload=events.generation_failed(
            generation_id=str(locked.pk),
            tool=locked.tool,
            error=reason,
            input_data=locked.input,
            context={"refunded": locked.credits_charged},
        ),
    )
    return locked


def generation_run(*, user: User, tool: str, data: dict[str, Any]) -> Generation:
    """Synchronous call: the succeeded entry, or AIProviderFailed (502) after the refund."""
    generation = generation_execute(generation=generation_start(user=user, tool=tool, data=data))
    if generation.status != GenerationStatus.SUCCEEDED:
        raise AIProviderFailed(
            f"{generation.error} Your credits were refunded.",
            details={"historyId": str(generation.pk), "refunded": generation.credits_charged},
        )
    return generation


def generation_enqueue(*, user: User, tool: str, data: dict[str, Any]) -> Generation:
    """Asynchronous call (`Prefer: respond-async`): charged now, generated by a worker."""
    from aitools.tasks import run_generation_task

    generation = generation_start(user=user, tool=tool, data=data, is_async=True)
    enqueue_on_commit(run_generation_task, generation_id=str(generation.pk))
    return generation


def generations_fail_stale() -> int:
    """Entries still unfinished long after any worker would have finished (the task's hard
    time limit is far shorter) died with their process: refund them, so no credit is spent
    for nothing. Never claimed: by creation time; claimed: by its lease."""
    now = timezone.now()
    cutoff = now - timedelta(seconds=settings.AI_STALE_AFTER_SECONDS)
    never_claimed = Generation.objects.filter(
        status=GenerationStatus.PENDING, created_at__lt=cutoff
    )
    stale = never_claimed | GENERATIONS.expired(now)
    failed = 0
    for generation in stale.iterator(chunk_size=100):
        outcome = generation_fail(
            generation=generation, reason="The generation did not finish in time."
        )
        failed += outcome.error == "The generation did not finish in time."
    return failed


EDITABLE = {Gig: ("title", "description", "status"), Proposal: ("title", "content", "status")}


def record_update(*, record: Gig | Proposal, fields: dict[str, Any]) -> Gig | Proposal:
    """Edit a stored gig or proposal; only the user-editable fields are written."""
    editable = {k: v for k, v in fields.items() if k in EDITABLE[type(record)]}
    for name, value in editable.items():
        setattr(record, name, value)
    if editable:
        record.save(update_fields=[*editable, "updated_at"])
    return record


def record_delete(*, record: Gig | Proposal) -> None:
    record.delete()


def history_erase(user: User) -> list[str]:
    """The registry's erasure cleanup: a user's AI history, gigs and proposals go with them
    (the ledger keeps its anonymous spend and refund rows)."""
    Gig.objects.filter(user=user).delete()
    Proposal.objects.filter(user=user).delete()
    Generation.objects.filter(user=user).delete()
    return []


# --- The notifications of the AI tools' events (subscribed in AitoolsConfig.ready) ----------


def generations_notify(emitted: list[events.Event]) -> None:
    """A queued call's result, or any call's failure and refund, in the user's notifications
    (a synchronous result is the response itself)."""
    drafts = []
    for event in emitted:
        user_id, payload = event.user_id, event.payload
        data, context = payload.data, payload.context
        label = TOOLS[data["tool"]].label
        metadata = {"generationId": data["generationId"], "tool": data["tool"]}
        if payload.event == "generation.completed" and context["asynchronous"]:
            drafts.append(
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.AI_COMPLETE,
                    title=f"{label} ready",
                    message=f"Your {label} result is ready: {context['title']}",
                    metadata=metadata,
                )
            )
        elif payload.event == "generation.failed":
            drafts.append(
                NotificationDraft(
                    user_id=user_id,
                    type=NotificationType.AI_FAILED,
                    title=f"{label} failed",
                    message=f"{data['error']} Your {context['refunded']} credit(s) were refunded.",
                    metadata=metadata,
                )
            )
    notify_many(drafts=drafts)
