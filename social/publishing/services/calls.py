"""The platform calls of one attempt, in a worker thread that touches no database: each part
created, or looked up first when an earlier attempt may have created it; a video waited on
while the platform processes it (social.md sections 9 and 10)."""

import logging
from dataclasses import replace
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils import timezone

from core import outbound, slots
from social.conf import scheduler_config
from social.content import (
    Part,
    parts_of,
)
from social.models import ScheduledRecord
from social.networks import NETWORKS
from social.providers.base import Adapter, Attempt, Published, QuotaReached
from social.publishing.services.job import Job

logger = logging.getLogger(__name__)


def attempt_call(job: Job) -> None:
    """The provider calls of one attempt, in one of the platform's slots shared by every worker
    process (SCHEDULER_PROVIDER_CONCURRENCY); no database (a worker thread)."""
    if job.error is not None:
        return
    config = scheduler_config()
    with slots.slot(
        f"provider:{job.record.provider}",
        limit=config.provider_concurrency,
        wait=config.provider_wait_seconds,
        hold_seconds=config.lease_seconds,
        keep=config.concurrency,  # this process's calls at most
    ) as held:
        if held:
            _calls(job)
        else:
            job.deferred = True


def _calls(job: Job) -> None:
    """Publish the record's parts in order (the post, its thread's replies, its first
    comment), each once: a part an earlier attempt published is skipped, and the first part
    not yet published, when the last attempt may have delivered it (`outcome_unknown`), is
    looked up before it is created again. Stops at the first failure (`job.error`)."""
    record = job.record
    adapter = NETWORKS[record.provider].adapter
    done: dict[int, Published] = {int(part["index"]): _published_of(part) for part in record.parts}
    job.parts = list(record.parts)
    job.published = done.get(0)
    job.processing = dict(record.processing)
    unknown = record.outcome_unknown
    try:
        for part in parts_of(job.draft, record.provider):
            if part.index in done:
                continue
            attempt = job.attempt(part.index, unknown=unknown)
            published = None
            if unknown:
                unknown = False  # only the part in flight when the outcome was lost
                published = _part_lookup(adapter, job, part, attempt, done)
                job.checked = True
                job.found = job.found or (part.index == 0 and published is not None)
                if published is None and record.attempts >= scheduler_config().max_attempts:
                    # Its attempts are used up (the last one's worker died) and the platform
                    # says the part is not there: never a new create, and nothing in doubt.
                    job.error = outbound.TransientError(
                        "The last attempt stopped before its result was recorded, and "
                        "the platform does not have the post."
                    )
                    return
            if published is None:
                try:
                    published = _part_created(adapter, job, part, attempt, done)
                except outbound.TransientError as error:
                    if not (job.final and error.maybe_delivered):
                        raise
                    published = _asked(
                        adapter, job, part, replace(attempt, unknown=True), done, error
                    )
                if published is None:  # the platform is processing a video: a task looks again
                    job.pending = True
                    return
            done[part.index] = published
            if part.index == 0:
                job.published = published
            job.parts.append(_part_data(part, published))
            job.processing = {}  # what its create kept is done with
        job.complete = True
    except QuotaReached as full:
        # The platform's own quota for the account is used up (read before the create, so
        # nothing was sent): the record waits for it, no attempt counted, unless this attempt
        # published a part already (then a retry, at the window's end, keeps what is out).
        if len(job.parts) == len(record.parts):
            job.deferred, job.quota = True, full
        else:
            wait = (full.until - timezone.now()).total_seconds() if full.until else 0
            job.error = outbound.TransientError(full.message, retry_after=max(0, int(wait)))
    except outbound.HostBusy as busy:
        # The user's own server (a Mastodon instance, a PDS) had all its calls from this
        # process in flight: nothing was sent. As for a busy platform, the record waits its
        # turn with no attempt counted, unless this attempt already published or uploaded.
        if len(job.parts) == len(record.parts) and job.kept() == record.processing:
            job.deferred = True
        else:
            job.error = busy
    except outbound.OutboundError as error:
        job.error = error
    except Exception as error:  # a bug or a provider answer we did not expect
        logger.exception(
            "Publishing record %s to %s failed unexpectedly", record.pk, record.provider
        )
        job.error = outbound.TransientError(
            f"Unexpected error ({type(error).__name__}).", maybe_delivered=True
        )


def _part_created(
    adapter: Adapter, job: Job, part: Part, attempt: Attempt, done: dict[int, Published]
) -> Published | None:
    """The part's create (a video post's upload and look first); None while the platform
    processes the video."""
    if part.kind == "post" and adapter.processed(part.content):
        return _video_post(adapter, job, part, attempt)
    return _part_create(adapter, job, part, attempt, done)


def _asked(
    adapter: Adapter,
    job: Job,
    part: Part,
    attempt: Attempt,
    done: dict[int, Published],
    error: outbound.TransientError,
) -> Published:
    """The record's last attempt failed after its create may have done the work (a 500, 502
    or 504, a timeout after sending, a lost answer): the platform is asked before the record
    ends (social.md section 5). Found: the part is published. Not there: the failure did
    nothing (raised, no longer in doubt). No answer: raised as it was, still in doubt."""
    try:
        found = _part_lookup(adapter, job, part, attempt, done)
    except outbound.OutboundError:
        raise error from None
    job.checked = True
    if found is None:
        error.maybe_delivered = False
        raise error
    job.found = job.found or part.index == 0
    return found


def _video_post(adapter: Adapter, job: Job, part: Part, attempt: Attempt) -> Published | None:
    """A post with a video (or media the platform processes: adapter.processed): upload it
    once (an upload already made, its state kept on the record, is never made again), look
    once at the platform's processing, and publish when it is done; None while the platform
    is still processing (no thread waits for it)."""
    state = attempt.state  # job.processing, the post's
    if "since" not in state:
        state.update(adapter.video_upload(job.credentials, part.content, attempt))
        state["since"] = timezone.now().isoformat()
    state["polls"] = int(state.get("polls", 0)) + 1
    if not adapter.video_ready(job.credentials, state):
        began = datetime.fromisoformat(str(state["since"]))
        if (timezone.now() - began).total_seconds() > settings.VIDEO_PROCESSING_TIMEOUT_SECONDS:
            minutes = settings.VIDEO_PROCESSING_TIMEOUT_SECONDS // 60
            name = NETWORKS[job.record.provider].name
            if "document" in state:
                raise outbound.PermanentError(
                    f"{name} did not finish processing the document within {minutes} minutes."
                )
            raise outbound.PermanentError(
                f"{name} did not finish processing the video within {minutes} minutes."
            )
        return None
    return adapter.publish(job.credentials, replace(part.content, video=state), attempt)


def poll_delay(state: dict[str, Any]) -> float:
    """Seconds until the next look at a video in processing (VIDEO_POLL_SECONDS, its last
    value repeated), never sooner than the platform asked (`checkAfter`: X's
    `check_after_secs`)."""
    delays = list(settings.VIDEO_POLL_SECONDS) or [5.0]
    delay = float(delays[min(int(state.get("polls", 1)) - 1, len(delays) - 1)])
    return max(delay, float(state.get("checkAfter") or 0))


def _part_create(
    adapter: Adapter, job: Job, part: Part, attempt: Attempt, done: dict[int, Published]
) -> Published:
    if part.kind == "post":
        return adapter.publish(job.credentials, part.content, attempt)
    if part.kind == "reply":
        parent, root = done[part.index - 1], done[0]
        return adapter.reply(job.credentials, part.content, attempt, parent=parent, root=root)
    return adapter.comment(job.credentials, part.content.text, attempt, on=done[0])


def _part_lookup(
    adapter: Adapter, job: Job, part: Part, attempt: Attempt, done: dict[int, Published]
) -> Published | None:
    if part.kind == "post":
        return adapter.lookup(job.credentials, part.content, attempt)
    if part.kind == "reply":
        parent, root = done[part.index - 1], done[0]
        return adapter.reply_lookup(
            job.credentials, part.content, attempt, parent=parent, root=root
        )
    return adapter.comment_lookup(job.credentials, part.content.text, attempt, on=done[0])


def _part_data(part: Part, published: Published) -> dict[str, Any]:
    """A published part as the record stores it (`ref`: what a reply to it must name)."""
    data = {
        "index": part.index,
        "kind": part.kind,
        "providerPostId": published.provider_post_id,
        "url": published.url,
    }
    if published.ref:
        data["ref"] = published.ref
    return data


def published_post(record: ScheduledRecord) -> Published | None:
    """The record's post (its part 0), when it stores it: out already."""
    return next((_published_of(part) for part in record.parts if int(part["index"]) == 0), None)


def _published_of(part: dict[str, Any]) -> Published:
    return Published(
        provider_post_id=str(part.get("providerPostId") or ""),
        url=str(part.get("url") or ""),
        ref=str(part.get("ref") or ""),
    )
