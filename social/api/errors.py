"""The error object of each outcome that publishing now or a scheduler run answers (social.md
section 12)."""

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.fields import SkipField

from social.error_objects import error_object
from social.publishing import Outcome, OutcomeStatus
from social.selectors import (
    record_errors,
)

LOST_CATEGORIES = {"lease_lost": "unconfirmed", "settle_failed": "internal"}


def outcome_error(outcome: Outcome, errors: Mapping[str, dict[str, Any] | None]) -> dict[str, Any]:
    """`error` of an attempt that did not publish (publish now, a scheduler run): the
    record's error object (`errors`: record_errors of the results), or, for a result that
    was not recorded, one made of the outcome."""
    if outcome.success:
        return {}
    error = errors.get(outcome.record_id)
    if error is None:
        error = error_object(
            code=outcome.error_code,
            category=LOST_CATEGORIES.get(outcome.error_code, "internal"),
            message=outcome.error or "The result could not be recorded.",
            provider=outcome.provider,
            waiting=outcome.status in (OutcomeStatus.SCHEDULED, OutcomeStatus.LOST),
            retry_at=outcome.retry_at,
        )
    return {"error": error}


def outcomes_errors(outcomes: list[Outcome]) -> dict[str, dict[str, Any] | None]:
    """The error objects of the results that did not publish, in one query."""
    return record_errors(record_ids=[o.record_id for o in outcomes if not o.success])


class OutcomeErrorField(serializers.DictField):
    """`error` of an attempt that did not publish (outcome_error); absent when it did. The
    serializer's context carries the records' errors (`errors`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", required=False, **kwargs)

    def get_attribute(self, instance: Any) -> Any:
        if instance.success:
            raise SkipField()
        return instance

    def to_representation(self, value: Any) -> dict[str, Any]:
        return dict(outcome_error(value, self.context.get("errors") or {})["error"])


# One target of a publish-now.
class PublishResultSerializer(serializers.Serializer[Any]):
    accountId = serializers.UUIDField(source="account_id")
    provider = serializers.CharField()
    success = serializers.BooleanField()
    url = serializers.CharField()
    providerPostId = serializers.CharField(source="provider_post_id")
    recordId = serializers.UUIDField(source="record_id")
    status = serializers.CharField()
    error = OutcomeErrorField()
