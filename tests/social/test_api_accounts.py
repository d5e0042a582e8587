"""Connecting accounts through the HTTP API against provider stand-ins: Dev.to (API key) and
Bluesky (app password); listing, disconnecting, and every refusal storing nothing."""

from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from accounts.services.sessions import session_issue
from accounts.services.users import user_create
from social.models import SocialAccount
from tests.social.standins import (
    BLUESKY_APP_PASSWORD,
    BLUESKY_DID,
    BLUESKY_HANDLE,
    DEVTO_KEY,
    provider_standin,
)

pytestmark = pytest.mark.django_db

PREFIXES = ["/api", "/api/v1"]


def client_for(user: Any) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {session_issue(user=user).token}")
    return client


@pytest.fixture
def standin(settings):
    with provider_standin() as state:
        settings.DEVTO_API_URL = f"{state.url}/devto/api"
        settings.BLUESKY_SERVICE_URL = f"{state.url}/bsky"
        yield state


@pytest.fixture
def ada():
    return user_create(email="ada@example.com")


@pytest.fixture
def api(ada):
    return client_for(ada)


def connect_devto(api: Any, prefix: str = "/api", key: str = DEVTO_KEY) -> Any:
    return api.post(f"{prefix}/social/connect", {"provider": "devto", "code": key})


def connect_bluesky(api: Any, prefix: str = "/api", password: str = BLUESKY_APP_PASSWORD) -> Any:
    return api.post(
        f"{prefix}/social/connect",
        {"provider": "bluesky", "code": password, "identifier": BLUESKY_HANDLE},
    )


@pytest.mark.parametrize("prefix", PREFIXES)
def test_platforms_list_every_provider_with_its_limits(api, prefix):
    data = api.get(f"{prefix}/social/platforms").json()["data"]
    assert [p["provider"] for p in data] == [
        "linkedin",
        "facebook",
        "instagram",
        "bluesky",
        "mastodon",
        "devto",
    ]
    bluesky = next(p for p in data if p["provider"] == "bluesky")
    assert bluesky == {
        "provider": "bluesky",
        "name": "Bluesky",
        "connectMethod": "app_password",
        "configured": True,
        "limits": {
            "maxCharacters": 300,
            "countsBy": "graphemes",
            "maxMedia": 4,
            "mediaRequired": False,
            "maxHashtags": None,
            "titleRequired": False,
            "maxTitle": None,
        },
    }


@pytest.mark.parametrize("prefix", PREFIXES)
def test_connect_devto_with_an_api_key(api, ada, standin, prefix):
    response = connect_devto(api, prefix)
    assert response.status_code == 200
    data = response.json()["data"]
    account = SocialAccount.objects.get()
    assert data == {
        "id": str(account.id),
        "user_id": str(ada.id),
        "provider": "devto",
        "provider_user_id": "4242",
        "username": "ada",
        "display_name": "Ada Lovelace",
        "email": "",
        "avatar": "https://media.dev.to/ada.png",
        "status": "connected",
        "last_sync": data["last_sync"],
        "created_at": data["created_at"],
        "expires_at": None,
        "instance": "",
        "limits": data["limits"],
    }
    # The provider saw the real request shape; the key is stored encrypted, never returned.
    call = standin.requests[-1]
    assert (call["method"], call["path"]) == ("GET", "/devto/api/users/me")
    assert call["headers"]["api-key"] == DEVTO_KEY
    assert call["headers"]["Accept"] == "application/vnd.forem.api-v1+json"
    assert DEVTO_KEY not in response.content.decode()
    with connection.cursor() as cursor:
        cursor.execute("SELECT access_token FROM social_socialaccount")
        stored = cursor.fetchone()[0]
    assert stored
    assert DEVTO_KEY not in stored
    assert account.access_token == DEVTO_KEY


def test_connect_bluesky_keeps_the_session_not_the_app_password(api, standin):
    response = connect_bluesky(api)
    assert response.status_code == 200
    data = response.json()["data"]
    assert (data["provider_user_id"], data["username"], data["display_name"]) == (
        BLUESKY_DID,
        BLUESKY_HANDLE,
        "Ada",
    )
    account = SocialAccount.objects.get()
    assert (account.access_token, account.refresh_token) == ("access-jwt-1", "refresh-jwt-1")
    assert BLUESKY_APP_PASSWORD not in str(account.access_token)


def test_accounts_list_and_disconnect(api, standin):
    connect_devto(api)
    connect_bluesky(api)
    listed = api.get("/api/social/accounts").json()["data"]
    assert sorted(a["provider"] for a in listed) == ["bluesky", "devto"]
    bluesky_id = next(a["id"] for a in listed if a["provider"] == "bluesky")
    response = api.post("/api/social/disconnect", {"accountId": bluesky_id})
    assert response.status_code == 200
    assert response.json()["data"] == {"success": True, "cancelledCount": 0}
    # Credentials deleted, session revoked at the provider (best effort), gone from the list.
    account = SocialAccount.objects.get(pk=bluesky_id)
    assert (account.status, account.access_token, account.refresh_token) == ("disconnected", "", "")
    assert standin.deleted_sessions == ["Bearer refresh-jwt-1"]
    assert [a["provider"] for a in api.get("/api/social/accounts").json()["data"]] == ["devto"]
    # Disconnecting again, or an unknown id, is 404.
    assert api.post("/api/social/disconnect", {"accountId": bluesky_id}).status_code == 404


def test_reconnecting_replaces_the_credentials_of_the_same_account(api, standin):
    first = connect_devto(api).json()["data"]["id"]
    second = connect_devto(api).json()["data"]["id"]
    assert first == second
    assert SocialAccount.objects.count() == 1


def test_another_users_account_is_409_and_404(api, standin):
    connect_devto(api)
    mallory = client_for(user_create(email="mallory@example.com"))
    response = connect_devto(mallory)
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "account_already_connected"
    account_id = SocialAccount.objects.get().id
    assert mallory.post("/api/social/disconnect", {"accountId": str(account_id)}).status_code == 404
    assert mallory.get("/api/social/accounts").json()["data"] == []
    assert SocialAccount.objects.get().status == "connected"


@pytest.mark.parametrize(
    ("mode", "status", "code"),
    [("down", 502, "provider_unavailable"), ("busy", 502, "provider_unavailable")],
)
def test_a_provider_outage_is_502_and_stores_nothing(api, standin, mode, status, code):
    standin.mode = mode
    response = connect_devto(api)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert not SocialAccount.objects.exists()


@pytest.mark.parametrize("provider", ["devto", "bluesky"])
def test_refused_credentials_are_400_and_store_nothing(api, standin, provider):
    response = (
        connect_devto(api, key="wrong-key")
        if provider == "devto"
        else connect_bluesky(api, password="wrong-password")
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "provider_auth_failed"
    assert error["details"]["provider"] == provider
    assert not SocialAccount.objects.exists()


@pytest.mark.parametrize(
    ("body", "details"),
    [
        ({"provider": "myspace", "code": "x"}, {"provider": ['"myspace" is not a valid choice.']}),
        ({"provider": "devto"}, {"code": ["This field is required."]}),
        (
            {"provider": "bluesky", "code": "x"},
            {"identifier": ["Your Bluesky handle or e-mail is required."]},
        ),
        (
            {"provider": "mastodon", "code": "x"},
            {"instance": ["Your Mastodon server's address is required."]},
        ),
        (
            {"provider": "mastodon", "code": "x", "instance": "not a url"},
            {"instance": ["Enter a valid URL."]},
        ),
        (
            {"provider": "devto", "code": "x" * 5000},
            {"code": ["Ensure this field has no more than 4096 characters."]},
        ),
    ],
)
def test_bad_input_is_400_and_stores_nothing(api, standin, body, details):
    response = api.post("/api/social/connect", body)
    assert response.status_code == 400
    assert response.json()["error"]["details"] == details
    assert not SocialAccount.objects.exists()
    assert standin.requests == []


def test_a_provider_without_an_adapter_yet_is_503(api, standin):
    response = api.post("/api/social/connect", {"provider": "linkedin", "code": "x"})
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "provider_not_configured"
    assert not SocialAccount.objects.exists()
