"""`field__any=[...]` (core/lookups.py): the rows `__in` finds, as one array parameter on
PostgreSQL."""

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.models import OutboxEvent

pytestmark = pytest.mark.django_db


def test_any_finds_what_in_finds_by_uuid_text_integer_and_foreign_key(ada, bob):
    rows = [OutboxEvent.objects.create(event="post.published", user=user, data={})
            for user in (ada, bob, ada)]  # fmt: skip
    wanted = [rows[0].id, str(rows[2].id), uuid.uuid4()]
    assert set(OutboxEvent.objects.filter(id__any=wanted)) == {rows[0], rows[2]}
    assert set(OutboxEvent.objects.filter(pk__any=[rows[1].pk])) == {rows[1]}
    mine = OutboxEvent.objects.filter(pk__any=[row.pk for row in rows])
    assert set(mine.filter(user_id__any=[bob.pk])) == {rows[1]}
    assert set(mine.exclude(id__any=[rows[0].id])) == {rows[1], rows[2]}
    assert not OutboxEvent.objects.filter(id__any=[]).exists()


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the array is PostgreSQL's")
def test_any_is_one_parameter_whatever_the_number_of_values():
    keys = [uuid.uuid4() for _ in range(64)]
    with CaptureQueriesContext(connection) as queries:
        list(OutboxEvent.objects.filter(id__any=keys[:3]))
        list(OutboxEvent.objects.filter(id__any=keys))
    first, second = (query["sql"] for query in queries)
    assert "= ANY(" in first
    assert first.split("ANY(")[0] == second.split("ANY(")[0]
