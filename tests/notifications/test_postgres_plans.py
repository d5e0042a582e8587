"""On PostgreSQL every notification query is answered from the per-user indexes.

A few thousand rows, most of them read and most of them another user's, vacuumed and analyzed,
with sequential and bitmap scans switched off: every query is read through an index on the
user, and the pages through the index that gives their order. At this size the planner's pick
among the fitting indexes for the counts and read-all varies from run to run, so those are
not pinned here; bench/notifications.py shows its picks at 100,000 rows a user.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.models import Notification
from notifications.services import notify_bulk

# Not inside a test transaction: VACUUM (which sets the visibility map that index-only scans
# rely on, and the partial index's statistics) cannot run in one.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def plans(client, method: str, url: str) -> list[str]:
    """EXPLAIN of each query the request ran after looking up the token's user."""
    with CaptureQueriesContext(connection) as captured:
        response = getattr(client, method)(url)
    assert response.status_code == 200
    queries = [q["sql"] for q in captured.captured_queries]
    assert 'FROM "accounts_user"' in queries[0]
    explained = []
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        cursor.execute("SET enable_bitmapscan = off")
        try:
            for sql in queries[1:]:
                cursor.execute("EXPLAIN " + sql)
                explained.append("\n".join(row[0] for row in cursor.fetchall()))
        finally:
            cursor.execute("RESET enable_seqscan")
            cursor.execute("RESET enable_bitmapscan")
    return explained


@pytest.fixture
def filled(ada, bob):
    notify_bulk(
        user_ids=[ada.id] * 2000 + [bob.id] * 6000, type="ai_complete", title="T", message="M"
    )
    unread = Notification.objects.filter(user=ada).values_list("pk", flat=True)[:20]
    Notification.objects.exclude(pk__in=list(unread)).update(read=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) notifications_notification")


def test_first_page(filled, ada_client):
    count, page = plans(ada_client, "get", "/api/notifications?page=1&limit=20")
    assert "Index Only Scan using notif_user_count_idx" in count
    assert "Index Only Scan using notif_user_created_idx" in page
    assert "Seq Scan" not in count + page


def test_oldest_first_reads_the_same_index_backwards(filled, ada_client):
    _, page = plans(ada_client, "get", "/api/notifications?page=2&limit=20&order=asc")
    assert "Index Only Scan Backward using notif_user_created_idx" in page


def by_user_index(plan: str) -> bool:
    """Read through an index on the user (which of the fitting ones is the planner's call)."""
    return "Seq Scan" not in plan and "Index Cond: (user_id = " in plan


def test_unread_page(filled, ada_client):
    count, page = plans(ada_client, "get", "/api/notifications?read=false&page=1")
    assert by_user_index(count)
    assert "Index Only Scan using notif_user_unread_idx" in page


def test_read_page(filled, ada_client):
    count, page = plans(ada_client, "get", "/api/notifications?read=true&page=1")
    assert by_user_index(count)
    assert by_user_index(page)


def test_unread_count(filled, ada_client):
    [count] = plans(ada_client, "get", "/api/notifications/unread")
    assert by_user_index(count)


def test_read_all(filled, ada_client):
    [update] = plans(ada_client, "post", "/api/notifications/read-all")
    assert update.startswith("Update on notifications_notification")
    assert by_user_index(update)
