"""Unread count, read-all, mark one read and delete: counts, idempotence, user isolation."""

import uuid

import pytest
from django.test import Client

from accounts.services.sessions import session_issue
from notifications.models import Notification
from tests.notifications.conftest import as_json

pytestmark = pytest.mark.django_db

READ_ALL_MESSAGE = "All notifications marked as read"


def not_found(message: str = "Notification not found.") -> dict:
    return {"success": False, "message": message, "error": {"code": "not_found", "details": {}}}


# --- GET /api/notifications/unread -------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_unread_count(ada_client, ada, bob, seed, prefix):
    seed(ada, 3)
    seed(ada, 2, read=True, start=3)
    seed(bob, 4, start=5)
    response = ada_client.get(f"{prefix}/notifications/unread")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"unreadCount": 3}}


def test_unread_count_of_nothing_is_0(ada_client):
    assert ada_client.get("/api/notifications/unread").json() == {
        "success": True,
        "data": {"unreadCount": 0},
    }


def test_unread_count_is_one_query_besides_the_token_user(
    ada_client, ada, seed, django_assert_num_queries
):
    seed(ada, 5)
    with django_assert_num_queries(2) as captured:  # the token's user, the user's counter
        response = ada_client.get("/api/notifications/unread")
    assert response.json()["data"] == {"unreadCount": 5}
    last = captured.captured_queries[-1]["sql"].upper()
    assert "NOTIFICATIONS_NOTIFICATIONCOUNTER" in last
    assert "COUNT(" not in last  # read from the counter, never counted


# --- POST /api/notifications/read-all ----------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_read_all_counts_and_a_second_call_counts_0(ada_client, ada, seed, prefix):
    seed(ada, 3)
    seed(ada, 2, read=True, start=3)
    response = ada_client.post(f"{prefix}/notifications/read-all")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": READ_ALL_MESSAGE,
        "data": {"updatedCount": 3, "message": READ_ALL_MESSAGE},
    }
    assert not Notification.objects.filter(user=ada, read=False).exists()
    again = ada_client.post(f"{prefix}/notifications/read-all")
    assert again.json()["data"] == {"updatedCount": 0, "message": READ_ALL_MESSAGE}


def test_read_all_leaves_other_users_untouched(ada_client, ada, bob, seed):
    seed(ada, 2)
    bobs = seed(bob, 4, start=2)
    assert ada_client.post("/api/notifications/read-all").json()["data"]["updatedCount"] == 2
    assert set(Notification.objects.filter(user=bob).values_list("read", flat=True)) == {False}
    assert Notification.objects.filter(user=bob).count() == len(bobs)


def test_read_all_is_one_update(ada_client, ada, seed, django_assert_num_queries):
    seed(ada, 10)
    # The token's user, the one UPDATE of the notifications, the counter's UPDATE.
    with django_assert_num_queries(3) as captured:
        ada_client.post("/api/notifications/read-all")
    updates = [q["sql"] for q in captured.captured_queries if q["sql"].upper().startswith("UPDATE")]
    assert len(updates) == 2
    assert '"notifications_notification"' in updates[0]
    assert '"notifications_notificationcounter"' in updates[1]


def test_read_all_with_a_json_body_is_fine_and_without_token_401(api, ada_client):
    assert ada_client.post("/api/notifications/read-all", {}, format="json").status_code == 200
    response = api.post("/api/notifications/read-all")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


# --- POST /api/notifications/:id/read ----------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_mark_one_read_answers_the_notification(ada_client, ada, seed, prefix):
    first, second = seed(ada, 2)
    response = ada_client.post(f"{prefix}/notifications/{first.id}/read")
    assert response.status_code == 200
    first.read = True
    assert response.json() == {"success": True, "data": as_json(first)}
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.read, second.read) == (True, False)
    assert ada_client.get("/api/notifications/unread").json()["data"] == {"unreadCount": 1}


def test_mark_read_is_idempotent(ada_client, ada, seed, django_assert_num_queries):
    [notification] = seed(ada, 1, read=True)
    with django_assert_num_queries(2):  # the token's user, the SELECT: nothing to write
        response = ada_client.post(f"/api/notifications/{notification.id}/read")
    notification.read = True
    assert response.json() == {"success": True, "data": as_json(notification)}


def test_marking_another_users_notification_is_404_and_changes_nothing(ada_client, bob, seed):
    [bobs] = seed(bob, 1)
    response = ada_client.post(f"/api/notifications/{bobs.id}/read")
    assert response.status_code == 404
    assert response.json() == not_found()
    bobs.refresh_from_db()
    assert bobs.read is False


# --- DELETE /api/notifications/:id -------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_delete_own(ada_client, ada, seed, prefix):
    doomed, kept = seed(ada, 2)
    response = ada_client.delete(f"{prefix}/notifications/{doomed.id}")
    assert response.status_code == 200
    assert response.json() == {"success": True, "data": {"id": str(doomed.id), "deleted": True}}
    assert list(Notification.objects.values_list("id", flat=True)) == [kept.id]


def test_delete_is_one_statement(ada_client, ada, seed, django_assert_num_queries):
    [doomed] = seed(ada, 1)
    # The token's user, the DELETE (of an unread one: found by the first), the counter.
    with django_assert_num_queries(3) as captured:
        assert ada_client.delete(f"/api/notifications/{doomed.id}").status_code == 200
    assert captured.captured_queries[1]["sql"].upper().startswith("DELETE")
    assert captured.captured_queries[2]["sql"].upper().startswith("UPDATE")


def test_deleting_another_users_notification_is_404_and_it_stays(ada_client, bob_client, bob, seed):
    [bobs] = seed(bob, 1)
    response = ada_client.delete(f"/api/notifications/{bobs.id}")
    assert response.status_code == 404
    assert response.json() == not_found()
    assert Notification.objects.filter(pk=bobs.pk).exists()
    assert bob_client.get("/api/notifications").json()["data"] == [as_json(bobs)]


def test_deleting_twice_is_404_the_second_time(ada_client, ada, seed):
    [doomed] = seed(ada, 1)
    assert ada_client.delete(f"/api/notifications/{doomed.id}").status_code == 200
    response = ada_client.delete(f"/api/notifications/{doomed.id}")
    assert response.status_code == 404
    assert response.json() == not_found()


def test_an_unknown_id_is_404(ada_client):
    response = ada_client.delete(f"/api/notifications/{uuid.uuid4()}")
    assert response.status_code == 404
    assert response.json() == not_found()


@pytest.mark.parametrize("bad_id", ["123", "not-a-uuid", "0b5cb1d4-2f0e-4d8a-9d51-6f1f0c2a7e1"])
def test_a_malformed_id_is_a_json_404(ada_client, ada, seed, bad_id):
    seed(ada, 1)
    for method, path in [
        ("delete", f"/api/notifications/{bad_id}"),
        ("post", f"/api/notifications/{bad_id}/read"),
        ("delete", f"/api/v1/notifications/{bad_id}"),
    ]:
        response = getattr(ada_client, method)(path)
        assert response.status_code == 404
        assert response.json() == not_found(f"No API route matches {method.upper()} {path}.")
    assert Notification.objects.count() == 1


def test_delete_without_token_is_401_and_deletes_nothing(api, ada, seed):
    [notification] = seed(ada, 1)
    response = api.delete(f"/api/notifications/{notification.id}")
    assert response.status_code == 401
    assert Notification.objects.filter(pk=notification.pk).exists()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/notifications/unread"),
        ("post", "/api/notifications/read-all"),
        ("post", "/api/notifications/{id}/read"),
        ("delete", "/api/notifications/{id}"),
    ],
)
def test_every_route_wants_a_token(api, ada, seed, method, path):
    [notification] = seed(ada, 1)
    response = getattr(api, method)(path.format(id=notification.id))
    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "message": "Missing Authorization Header",
        "error": {"code": "not_authenticated", "details": {}},
    }


def test_wrong_methods_are_405(ada_client, ada, seed):
    [notification] = seed(ada, 1)
    assert ada_client.get(f"/api/notifications/{notification.id}").status_code == 405
    assert ada_client.post("/api/notifications/unread").status_code == 405
    assert ada_client.get("/api/notifications/read-all").status_code == 405


@pytest.mark.parametrize("method", ["DELETE", "POST"])
def test_a_malformed_id_is_404_not_a_csrf_403(ada, method):
    # A client that enforces CSRF like a browser session would: the id matches no route, and
    # the answer says so instead of the CSRF middleware's 403.
    client = Client(enforce_csrf_checks=True)
    token = session_issue(user=ada).token
    response = client.generic(
        method, "/api/notifications/not-a-uuid", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
