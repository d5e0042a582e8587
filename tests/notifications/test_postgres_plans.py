"""On PostgreSQL every notification query is answered from the per-user indexes or counters.

A few thousand rows, most of them read and most of them another user's, vacuumed and analyzed,
with sequential and bitmap scans switched off: every query is read through an index on the
user, and the pages through the index that gives their order. At this size the planner's pick
among the fitting indexes for read-all varies from run to run, so it is not pinned here;
bench/notifications.py shows its picks at 100,000 rows a user. Totals come from the counter.
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.models import Notification
from notifications.services.center import notification_counters_rebuild, notify_bulk

# Not inside a test transaction: VACUUM (which sets the visibility map that index-only scans
# rely on, and the partial index's statistics) cannot run in one.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def plans(client, method: str, url: str) -> list[str]:
    """EXPLAIN of each query the request ran after looking up the token's user."""
    with CaptureQueriesContext(connection) as captured:
        response = getattr(client, method)(url)
    assert response.status_code == 200
    transaction_control = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
    queries = [
        q["sql"]
        for q in captured.captured_queries
        if not q["sql"].upper().startswith(transaction_control)
    ]
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
    notification_counters_rebuild()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM (ANALYZE) notifications_notification")


def test_first_page(filled, ada_client):
    counter, page = plans(ada_client, "get", "/api/notifications?page=1&limit=20")
    assert by_counter(counter)
    assert "Index Only Scan using notif_user_created_idx" in page
    assert "Seq Scan" not in page


def test_oldest_first_reads_the_same_index_backwards(filled, ada_client):
    _, page = plans(ada_client, "get", "/api/notifications?page=2&limit=20&order=asc")
    assert "Index Only Scan Backward using notif_user_created_idx" in page


def by_counter(plan: str) -> bool:
    """The total is the user's counter row, read by its primary key: nothing is counted."""
    return "Index Scan using notifications_notificationcounter_pkey" in plan


def by_user_index(plan: str) -> bool:
    """Read through an index on the user (which of the fitting ones is the planner's call)."""
    return "Seq Scan" not in plan and "Index Cond: (user_id = " in plan


def test_unread_page(filled, ada_client):
    counter, page = plans(ada_client, "get", "/api/notifications?read=false&page=1")
    assert by_counter(counter)
    assert "Index Only Scan using notif_user_unread_idx" in page


def test_read_page(filled, ada_client):
    counter, page = plans(ada_client, "get", "/api/notifications?read=true&page=1")
    assert by_counter(counter)
    assert by_user_index(page)


def test_unread_count(filled, ada_client):
    [counter] = plans(ada_client, "get", "/api/notifications/unread")
    assert by_counter(counter)


def test_read_all(filled, ada_client):
    update, counter = plans(ada_client, "post", "/api/notifications/read-all")
    assert update.startswith("Update on notifications_notification")
    assert by_user_index(update)
    assert counter.startswith("Update on notifications_notificationcounter")
