"""The social hub's records as its API shows them, written by hand for what renders many:
a post list's records (`RecordSerializer` renders through `record_data`) and the live feed's
`post` event, which carries every record of a post whose status or records changed (a burst's
settle presents thousands). The services emit `post.changed` with the records they wrote
(social.content.services.post_status); `post_changed_data` is the event channel's presenter of
it (`present`, registered in SocialConfig.ready()). This module sits beside the API, above
the services, which shape nothing; tests/social/test_shapes.py holds `record_data` equal to
RecordSerializer's declared fields as DRF renders them."""

from typing import Any

from core.times import iso
from notifications.events import Payload
from social.content import record_parts
from social.error_objects import record_error
from social.models import ScheduledRecord


def record_data(record: ScheduledRecord) -> dict[str, Any]:
    """A scheduled record as the API and the live feed show it."""
    return {
        "id": str(record.id),
        "postId": str(record.post_id),
        "accountId": str(record.account_id),
        "provider": record.provider,
        "scheduled_time": iso(record.scheduled_time),
        "status": record.status,
        "attempts": record.attempts,
        "next_attempt_at": iso(record.next_attempt_at),
        "published_at": iso(record.published_at),
        "url": record.url,
        "providerPostId": record.provider_post_id,
        "error": record_error(record),
        "queued": record.queued,
        "parts": record_parts(record),
        "warnings": list(record.warnings),
    }


def post_changed_data(payload: Payload) -> dict[str, Any]:
    """The event channel's presenter of `post.changed`: `{postId, status, scheduledRecords}`,
    the post's records (the emitter's `context`) as the API shows them."""
    records = [record_data(record) for record in payload.context["records"]]
    return {**payload.data, "scheduledRecords": records}
