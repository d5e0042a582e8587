"""core.bulk: many rows in one statement, as bulk_create would write them (on PostgreSQL the
rows travel as one JSON document)."""

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.bulk import insert_values, update_rows, upsert_add
from notifications.models import LiveEvent, Notification, NotificationCounter, OutboxEvent

pytestmark = pytest.mark.django_db


def test_null_columns_uuid_keys_made_in_python_and_text_beyond_ascii(ada):
    event = {"id": uuid.uuid4(), "event": "post.published", "user_id": ada.pk, "data": {"a": 1},
             "created_at": datetime(2026, 3, 1, tzinfo=UTC), "dispatched_at": None,
             "live_id": None, "actor": {"type": "system"}, "workspace_id": None}  # fmt: skip
    (sequence,) = insert_values(OutboxEvent, [event])
    stored = OutboxEvent.objects.get(sequence=sequence)
    assert (stored.id, stored.dispatched_at, stored.live_id) == (event["id"], None, None)
    assert stored.actor == {"type": "system"}
    note = {"id": uuid.uuid4(), "user_id": ada.pk, "title": "T", "message": "M",
            "category": "System", "type": "system_alert", "read": False, "metadata": {"x": "é"},
            "created_at": datetime(2026, 3, 1, tzinfo=UTC)}  # fmt: skip
    assert insert_values(Notification, [note]) == []  # no auto-incrementing key to give
    assert Notification.objects.get(pk=note["id"]).metadata == {"x": "é"}


def test_counters_are_made_or_added_to(ada, bob):
    NotificationCounter.objects.filter(user__in=[ada, bob]).delete()
    NotificationCounter.objects.create(user=ada, total=5, unread=2)
    upsert_add(NotificationCounter, key="user", amounts={
        ada.pk: {"total": 3, "unread": 3}, bob.pk: {"total": 1, "unread": 1}})  # fmt: skip
    counts = dict(
        NotificationCounter.objects.filter(user__in=[ada, bob]).values_list("user", "total")
    )
    assert counts == {ada.pk: 8, bob.pk: 1}
    assert NotificationCounter.objects.get(user=ada).unread == 5


@pytest.mark.skipif(connection.vendor != "postgresql", reason="update_rows is PostgreSQL's")
def test_each_row_gets_its_own_values_only_where_its_fence_matches(ada, bob):
    at = datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)
    first, second = (OutboxEvent.objects.create(event="post.published", user=user, data={},
                                                dispatched_at=at)
                     for user in (ada, bob))  # fmt: skip
    with CaptureQueriesContext(connection) as queries:
        written = update_rows(OutboxEvent, [
            {"id": first.id, "user": ada.pk, "event": "one", "data": {"n": [1, "é"]}},
            {"id": second.id, "user": ada.pk, "event": "two", "data": {}},  # bob's: no
        ], match=("id", "user"), nulls=("dispatched_at",))  # fmt: skip
    assert len(queries) == 1
    assert written == [first.pk]  # the primary key (here the sequence)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.event, first.data, first.dispatched_at) == ("one", {"n": [1, "é"]}, None)
    assert (second.event, second.data, second.dispatched_at) == ("post.published", {}, at)
    assert update_rows(OutboxEvent, [], match=("id",)) == []


def test_rows_given_as_values_are_written_whole_and_give_their_keys_in_order(ada, bob):
    at = datetime(2026, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)
    given: list[tuple[Any, str, dict[str, Any]]] = [
        (ada, "post", {"q": 'say "hi"', "n": [1, None]}),
        (bob, "event", {}),
        (ada, "credits", {"left": 3}),
    ]
    rows = [{"user_id": user.pk, "kind": kind, "data": data, "created_at": at,
             "workspace_id": None} for user, kind, data in given]  # fmt: skip
    with CaptureQueriesContext(connection) as queries:
        keys = insert_values(LiveEvent, rows)
    if connection.vendor == "postgresql":
        assert len(queries) == 1
    assert len(keys) == 3
    assert keys == sorted(keys)
    stored = {row.id: row for row in LiveEvent.objects.filter(pk__in=keys)}
    assert [(stored[key].user_id, stored[key].kind, stored[key].data, stored[key].created_at)
            for key in keys] == [
        (row["user_id"], row["kind"], row["data"], at) for row in rows]  # fmt: skip
    assert insert_values(LiveEvent, []) == []
