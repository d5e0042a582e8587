"""Recurring posts in the API (social.md section 11): the `recurrence` a schedule or a queue
request takes, and what a post record shows of its series."""

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from core.api.serializers import BodySerializer
from core.times import iso
from social.models import Post, Series
from social.planning import MAX_COUNT, RecurrenceInput, occurrences_next


class RecurrenceFields(BodySerializer):
    """`{rule, until?, count?}`: an RFC 5545 RRULE (FREQ=DAILY|WEEKLY|MONTHLY, INTERVAL, BYDAY,
    BYMONTHDAY, BYHOUR, BYMINUTE; never more often than daily), read in the schedule's zone
    (the queue's for a queued post); `until` an ISO date or date and time; `count` the
    occurrences on each account, the first included."""

    rule = serializers.CharField(max_length=500)
    until = serializers.CharField(required=False, allow_null=True, max_length=64)
    count = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_COUNT
    )


def recurrence_input(data: Mapping[str, Any]) -> RecurrenceInput:
    """RecurrenceFields' validated data as the services take it."""
    return RecurrenceInput(rule=data["rule"], until=data.get("until"), count=data.get("count"))


class RecurrenceOutput(serializers.Serializer[Any]):
    """What a post record shows of its series (null for a post that does not recur)."""

    rule = serializers.CharField()
    until = serializers.DateTimeField(allow_null=True)
    count = serializers.IntegerField(allow_null=True)


def recurrence_data(series: Series | None) -> dict[str, Any] | None:
    """RecurrenceOutput's shape, written by hand (a post list renders it for every post)."""
    if series is None:
        return None
    return {"rule": series.rule, "until": iso(series.until), "count": series.count}


def post_recurrence(post: Post) -> dict[str, Any]:
    """A post record's `recurrence` and `nextOccurrences` (from its loaded series and records)."""
    return {
        "recurrence": recurrence_data(getattr(post, "series", None)),
        "nextOccurrences": [iso(at) for at in occurrences_next(post)],
    }
