"""Account erasure: by the user (DELETE /api/auth/me) and by operators (the admin's delete)."""

import time

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from aitools.models import Generation
from billing.models import CreditTransaction
from notifications.models import Notification, OutboxEvent
from notifications.services.center import notify
from tests.factories import UserFactory, client_for

pytestmark = pytest.mark.django_db

PLAIN_TEXT = "Use plain text: no < or > and no control characters."
TOO_LONG = "Ensure this field has no more than 200 characters."


@pytest.fixture
def ada_with_history(ada_with_password):
    """Ada with something personal to erase: an AI generation (its credits spent) and a
    notification."""
    audit = client_for(ada_with_password).post(
        "/api/seo/audit", {"title": "Logo", "description": "Logos."}
    )
    assert audit.status_code == 200
    notify(user=ada_with_password, type="system_alert", title="Hi", message="Hello")
    return ada_with_password


def test_erasing_with_the_password_removes_everything_personal(ada_with_history):
    client = client_for(ada_with_history)
    spent = CreditTransaction.objects.filter(user=ada_with_history).count()
    response = client.delete("/api/auth/me", {"password": "correct-horse"})
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": "Account erased",
        "data": {"success": True},
    }
    erased = User.objects.get(pk=ada_with_history.pk)
    assert erased.email == f"erased-{ada_with_history.pk.hex}@erased.invalid"
    assert (erased.full_name, erased.is_active, erased.has_usable_password()) == ("", False, False)
    assert erased.erased_at is not None
    assert not Generation.objects.filter(user=ada_with_history).exists()
    assert not Notification.objects.filter(user=ada_with_history).exists()
    assert not OutboxEvent.objects.filter(user=ada_with_history).exists()
    # The ledger keeps its rows, now pointing at an anonymous account.
    assert CreditTransaction.objects.filter(user=ada_with_history).count() == spent
    # Signed out everywhere; the address is free for a new account.
    assert client.get("/api/auth/me").status_code == 401
    again = APIClient().post(
        "/api/auth/login", {"email": "ada@example.com", "password": "Other-pass-77"}
    )
    assert again.status_code == 200
    assert again.json()["message"] == "Account created"


def test_a_wrong_or_missing_password_erases_nothing(ada_with_history):
    client = client_for(ada_with_history)
    for body in ({}, {"password": "not-it-at-all"}):
        assert client.delete("/api/auth/me", body).status_code == 401
    assert User.objects.get(pk=ada_with_history.pk).erased_at is None
    assert Generation.objects.filter(user=ada_with_history).exists()


def test_a_passwordless_account_needs_a_fresh_sign_in(db):
    grace = UserFactory.create(email="grace@example.com")
    stale = client_for(grace, auth_time=int(time.time()) - 3600)
    response = stale.delete("/api/auth/me")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "reauthentication_required"
    assert User.objects.get(pk=grace.pk).erased_at is None
    fresh = client_for(grace)
    assert fresh.delete("/api/auth/me").status_code == 200
    assert User.objects.get(pk=grace.pk).erased_at is not None


def test_the_admin_delete_erases(ada_with_history, admin_client):
    client = admin_client
    confirm = client.get(f"/admin/accounts/user/{ada_with_history.pk}/delete/")
    assert confirm.status_code == 200
    assert "Cannot delete" not in confirm.content.decode()
    done = client.post(f"/admin/accounts/user/{ada_with_history.pk}/delete/", {"post": "yes"})
    assert done.status_code == 302
    assert User.objects.get(pk=ada_with_history.pk).erased_at is not None


def test_profile_update(ada):
    client = client_for(ada)
    response = client.patch(
        "/api/auth/me", {"fullName": "Ada L.", "avatarUrl": "https://cdn.example.com/ada.png"}
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["full_name"], data["avatar_url"]) == ("Ada L.", "https://cdn.example.com/ada.png")


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({}, {"non_field_errors": ["Send fullName, avatarUrl or both."]}),
        ({"avatarUrl": "ftp://example.com/a.png"}, {"avatarUrl": ["Use an http(s) address."]}),
        ({"avatarUrl": "javascript:alert(1)"}, {"avatarUrl": ["Enter a valid URL."]}),
        (
            {"fullName": "<b>Ada</b>"},
            {"fullName": ["Use plain text: no < or > and no control characters."]},
        ),
        (
            {"fullName": "x" * 201},
            {"fullName": ["Ensure this field has no more than 200 characters."]},
        ),
    ],
)
def test_bad_profile_updates_are_400_and_change_nothing(ada, body, details):
    response = client_for(ada).patch("/api/auth/me", body)
    assert response.status_code == 400
    assert response.json()["error"]["details"] == details
    ada.refresh_from_db()
    assert (ada.full_name, ada.avatar_url) == ("Ada", "")


@pytest.mark.parametrize("grant_on", ["signup", "verified"])
def test_erasing_and_signing_up_again_gets_no_second_starting_grant(settings, grant_on):
    # Free-credit farming: the starting grant is keyed by the address, which erasure frees.
    from urllib.parse import parse_qs, urlsplit

    settings.SIGNUP_CREDITS_ON = grant_on
    settings.MAGIC_LINK_EXPOSE_URL = True

    def sign_up() -> APIClient:
        if grant_on == "signup":
            credentials = {"email": "farm@example.com", "password": "Quiet-lake-42"}
            login = APIClient().post("/api/auth/login", credentials)
        else:
            requested = APIClient().post("/api/auth/magic-link", {"email": "farm@example.com"})
            url = requested.json()["data"]["magicUrl"]
            token = parse_qs(urlsplit(url).query)["token"][0]
            login = APIClient().post("/api/auth/magic-link/verify", {"token": token})
        assert login.status_code == 200, login.content
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {login.json()['data']['token']}")
        return client

    first = sign_up()
    assert first.get("/api/auth/me").json()["data"]["credits_remaining"] == 20
    body = {"password": "Quiet-lake-42"} if grant_on == "signup" else {}
    assert first.delete("/api/auth/me", body, format="json").status_code == 200
    again = sign_up()
    assert again.get("/api/auth/me").json()["data"]["credits_remaining"] == 0
