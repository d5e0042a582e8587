"""Connecting accounts through the HTTP API against the six provider stand-ins: the consent
flows, credentials, the account records, listing, disconnecting, and every refusal storing
nothing (social.md sections 1 and 2)."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.services.users import user_create
from notifications.models import Notification
from social.models import ConnectState, MastodonApp, SocialAccount, SocialSettings
from social.networks import NETWORKS
from tests.factories import client_for
from tests.social.conftest import REDIRECT_URI, connect, consent
from tests.social.standins import (
    BLUESKY_DID,
    BLUESKY_HANDLE,
    DEVTO_KEY,
    LINKEDIN_SUB,
    MASTODON_ACCOUNT_ID,
)

pytestmark = pytest.mark.django_db(transaction=False)

PREFIXES = ["/api", "/api/v1"]
PROVIDERS = ["linkedin", "facebook", "instagram", "bluesky", "mastodon", "devto"]


def test_platforms_list_every_provider_with_its_limits(ada_client):
    data = ada_client.get("/api/social/platforms").json()["data"]
    # The first six, then the networks added since (social.md section 13), in the registry's order.
    assert [p["provider"] for p in data] == list(NETWORKS)
    assert list(NETWORKS)[:6] == PROVIDERS
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
        "capabilities": {
            "text": True,
            "links": True,
            "images": True,
            "maxImages": 4,
            "altText": True,
            "video": True,
            "documents": False,
            "carousel": False,
            "threads": True,
            "firstComment": True,
            "title": False,
            "options": [],
        },
    }
    # Without our app credentials, LinkedIn (member and page), Meta, Threads, X, YouTube and
    # TikTok are listed but not configured.
    # Pinterest are listed but not configured.
    configured = {p["provider"]: p["configured"] for p in data}
    assert configured == {"linkedin": False, "facebook": False, "instagram": False,
                          "bluesky": True, "mastodon": True, "devto": True,
                          "threads": False, "x": False, "linkedin_page": False,
                          "youtube": False,
                          "tiktok": False,
                          "pinterest": False,
                          "telegram": True,
                          "discord": False,
                          "google_business": False, "slack": False,
                          "reddit": False}  # fmt: skip


def test_platforms_are_configured_by_the_app_credentials(ada_client, providers):
    data = ada_client.get("/api/social/platforms").json()["data"]
    assert all(p["configured"] for p in data)


@pytest.mark.parametrize("prefix", PREFIXES)
def test_a_user_connects_all_six_sees_them_and_disconnects_them(
    ada_client, ada, providers, connect_all, prefix
):
    accounts = connect_all(prefix)
    expected = {
        "linkedin": (LINKEDIN_SUB, "ada@example.com", "Ada Lovelace", ""),
        "facebook": ("1001", "Ada Designs", "Ada Designs", ""),
        "instagram": ("17841400000000001", "ada.designs", "Ada Designs", ""),
        "bluesky": (BLUESKY_DID, BLUESKY_HANDLE, "Ada", ""),
        "mastodon": (MASTODON_ACCOUNT_ID, "ada", "Ada", providers.mastodon.url),
        "devto": ("4242", "ada", "Ada Lovelace", ""),
    }
    for provider, record in accounts.items():
        assert set(record) == {
            "id", "user_id", "provider", "provider_user_id", "username", "display_name",
            "email", "avatar", "status", "last_sync", "created_at", "expires_at", "instance",
            "limits", "options",
        }  # fmt: skip
        assert (record["provider_user_id"], record["username"], record["display_name"],
                record["instance"]) == expected[provider]  # fmt: skip
        assert (record["user_id"], record["status"]) == (str(ada.id), "connected")
    # LinkedIn tokens (without a refresh token) last 60 days; a Bluesky session renews itself,
    # so its connection has no end (social.md section 2).
    linkedin_expiry = accounts["linkedin"]["expires_at"]
    assert linkedin_expiry is not None
    assert linkedin_expiry[:10] == (
        (timezone.now() + timedelta(seconds=5184000)).date().isoformat()
    )
    assert accounts["bluesky"]["expires_at"] is None
    assert accounts["devto"]["expires_at"] is None
    # The Mastodon account carries its instance's live limits.
    # ...in the shape /api/social/platforms reports, with the instance's values over it.
    assert accounts["mastodon"]["limits"] == {
        "maxCharacters": 1000, "countsBy": "characters", "maxMedia": 4, "mediaRequired": False,
        "maxHashtags": None, "titleRequired": False, "maxTitle": None, "charactersPerUrl": 23,
    }  # fmt: skip
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    for provider, record in accounts.items():
        assert set(platforms[provider]["limits"]) <= set(record["limits"]), provider

    listed = ada_client.get(f"{prefix}/social/accounts").json()["data"]
    assert sorted(a["provider"] for a in listed) == sorted(PROVIDERS)
    for record in accounts.values():
        response = ada_client.post(f"{prefix}/social/disconnect", {"accountId": record["id"]})
        assert response.status_code == 200
        assert response.json()["data"] == {"success": True, "cancelledCount": 0}
    assert ada_client.get(f"{prefix}/social/accounts").json()["data"] == []
    # Credentials deleted; sessions revoked where the platform offers it.
    assert set(SocialAccount.objects.values_list("status", "access_token", "refresh_token")) == {
        ("disconnected", "", "")
    }
    assert len(providers.bluesky.deleted_sessions) == 1
    assert len(providers.mastodon.revoked) == 1


def test_the_providers_see_their_real_request_shapes(ada_client, providers, connect_all):
    connect_all()
    token = providers.linkedin.received("POST", "/oauth/v2/accessToken")[0].body
    assert token == {"grant_type": "authorization_code", "code": "li-code-1",
                     "redirect_uri": REDIRECT_URI, "client_id": "li-client-id",
                     "client_secret": "li-client-secret"}  # fmt: skip
    userinfo = providers.linkedin.received("GET", "/v2/userinfo")[0]
    assert userinfo.headers["Authorization"] == "Bearer li-access-token"
    exchange = providers.meta.received("GET", "/v24.0/oauth/access_token")
    assert exchange[1].q("grant_type") == "fb_exchange_token"
    assert providers.meta.received("GET", "/v24.0/me/accounts")[0].headers["Authorization"] == (
        "Bearer fb-long-token"
    )
    registered = providers.mastodon.received("POST", "/api/v1/apps")[0].body
    assert registered["redirect_uris"] == REDIRECT_URI
    assert registered["scopes"] == "write:statuses write:media profile"
    devto = providers.devto.received("GET", "/api/users/me")[0]
    assert devto.headers["api-key"] == DEVTO_KEY
    assert devto.headers["Accept"] == "application/vnd.forem.api-v1+json"


def test_consent_urls_carry_the_client_redirect_scopes_and_state(ada_client, providers):
    for provider, host, scope in [
        ("linkedin", providers.linkedin.url, "openid profile email w_member_social"),
        ("facebook", providers.meta.url,
         "pages_manage_posts,pages_read_engagement,pages_show_list"),
        ("instagram", providers.meta.url, "instagram_content_publish"),
    ]:  # fmt: skip
        data = ada_client.get(
            f"/api/social/connect/{provider}/authorize", {"redirectUri": REDIRECT_URI}
        ).json()["data"]
        assert data["url"].startswith(host)
        assert "response_type=code" in data["url"]
        assert "redirect_uri=https%3A%2F%2Fapp.example.com%2Foauth%2Fcallback" in data["url"]
        assert f"state={data['state']}" in data["url"]
        assert scope.replace(" ", "+").replace(",", "%2C") in data["url"]
        assert data["provider"] == provider
        assert data["expiresAt"]


def test_credentials_are_encrypted_at_rest_and_never_returned(ada_client, providers, connect_all):
    accounts = connect_all()
    listed = ada_client.get("/api/social/accounts").content.decode()
    with connection.cursor() as cursor:
        cursor.execute("SELECT access_token, refresh_token FROM social_socialaccount")
        stored = " ".join(value for row in cursor.fetchall() for value in row)
    for secret in (DEVTO_KEY, "li-access-token", "page-token-1001", "masto-token"):
        assert secret not in listed
        assert secret not in stored
        assert secret not in str(accounts)
    assert SocialAccount.objects.get(provider="devto").access_token == DEVTO_KEY
    client_secret = MastodonApp.objects.get().client_secret
    with connection.cursor() as cursor:
        cursor.execute("SELECT client_secret FROM social_mastodonapp")
        assert client_secret not in cursor.fetchone()[0]


def test_bluesky_keeps_the_session_never_the_app_password(ada_client, providers):
    assert connect(ada_client, "bluesky").status_code == 200
    account = SocialAccount.objects.get()
    assert str(account.access_token) in providers.bluesky.access_tokens
    assert str(account.refresh_token) in providers.bluesky.refresh_tokens
    assert "abcd-efgh" not in str(account.access_token) + str(account.refresh_token)
    assert providers.bluesky.sessions_created == 1


def test_mastodon_registers_its_app_once_per_instance_and_redirect(ada_client, providers):
    instance = providers.mastodon.url
    connect(ada_client, "mastodon", instance=instance)
    grace = client_for(user_create(email="grace@example.com"))
    consent(grace, "mastodon", instance=instance + "/")  # the same server, written differently
    assert MastodonApp.objects.count() == 1
    assert len(providers.mastodon.received("POST", "/api/v1/apps")) == 1


def test_connecting_notifies_as_the_preferences_say(ada_client, ada, providers):
    connect(ada_client, "devto")
    connected = Notification.objects.get(type="account_connected")
    assert (connected.category, connected.metadata["platform"]) == ("Social Hub", "devto")
    connect(ada_client, "bluesky", code="wrong-password")
    failed = Notification.objects.get(type="account_connect_failed")
    assert failed.metadata == {"platform": "bluesky"}
    SocialSettings.objects.create(
        workspace=ada.personal_workspace,
        notification_preferences={"oauthSuccess": False, "oauthFailure": False},
    )
    connect(ada_client, "bluesky")
    connect(ada_client, "devto", code="wrong")
    assert Notification.objects.count() == 2


def test_reconnecting_replaces_the_credentials_of_the_same_account(ada_client, providers):
    first = connect(ada_client, "linkedin").json()["data"]["id"]
    second = connect(ada_client, "linkedin").json()["data"]["id"]
    assert first == second
    assert SocialAccount.objects.count() == 1


def test_another_users_account_is_409_and_404(ada_client, providers):
    connect(ada_client, "devto")
    mallory = client_for(user_create(email="mallory@example.com"))
    response = connect(mallory, "devto")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "account_already_connected"
    account_id = SocialAccount.objects.get().id
    assert mallory.post("/api/social/disconnect", {"accountId": str(account_id)}).status_code == 404
    assert mallory.get("/api/social/accounts").json()["data"] == []
    assert SocialAccount.objects.get().status == "connected"


def test_facebook_connects_the_chosen_page(ada_client, providers):
    response = connect(ada_client, "facebook", pageId="1002")
    assert response.json()["data"]["provider_user_id"] == "1002"
    assert SocialAccount.objects.get().access_token == "page-token-1002"


def test_facebook_without_a_page_is_400_no_facebook_page(ada_client, providers):
    providers.meta.pages = []
    response = connect(ada_client, "facebook")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "no_facebook_page"
    assert not SocialAccount.objects.exists()


def test_instagram_without_a_business_account_is_400_no_instagram_account(ada_client, providers):
    providers.meta.pages = [{"id": "1002", "name": "Ada Side Project", "ig": None}]
    response = connect(ada_client, "instagram")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "no_instagram_account"
    assert not SocialAccount.objects.exists()


def test_a_wrong_app_secret_fails_the_connection_without_retrying(ada_client, providers, settings):
    back = consent(ada_client, "facebook")
    settings.FACEBOOK_APP_SECRET = "not-the-secret"
    response = ada_client.post("/api/social/connect", {"provider": "facebook", "code": back["code"],
                                                "state": back["state"]})  # fmt: skip
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "provider_auth_failed"
    # The provider's own answer as an object, not JSON inside a string.
    message = error["details"]["providerMessage"]
    assert isinstance(message, dict)
    assert "Error validating client secret" in message["error"]["message"]
    # Graph's code 1 is "retry later" elsewhere; during the exchange it is final.
    assert len(providers.meta.received("GET", "/v24.0/oauth/access_token")) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_refused_code_or_credential_is_400_and_stores_nothing(ada_client, providers, provider):
    extra = {"instance": providers.mastodon.url} if provider == "mastodon" else {}
    response = connect(ada_client, provider, code="wrong-code", **extra)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "provider_auth_failed"
    assert error["details"]["provider"] == provider
    assert isinstance(error["details"]["providerMessage"], dict)
    assert error["details"]["providerMessage"]
    assert not SocialAccount.objects.exists()


@pytest.mark.parametrize("fail", ["down", "busy"])
@pytest.mark.parametrize("provider", ["linkedin", "bluesky", "devto"])
def test_a_provider_outage_is_502_and_stores_nothing(ada_client, providers, provider, fail):
    back = consent(ada_client, provider) if provider == "linkedin" else {}
    providers.by_provider(provider).fail = fail
    body = {"provider": provider, "code": back.get("code", DEVTO_KEY), "identifier": "x",
            **({"state": back["state"]} if back else {})}  # fmt: skip
    response = ada_client.post("/api/social/connect", body)
    assert response.status_code == 502
    assert response.json()["error"]["code"] == "provider_unavailable"
    assert not SocialAccount.objects.exists()


def test_a_state_is_single_use_and_bound_to_its_user_provider_and_time(ada_client, providers):
    back = consent(ada_client, "linkedin")
    body = {"provider": "linkedin", "code": back["code"], "state": back["state"]}
    # Another user cannot use it; another provider cannot either.
    mallory = client_for(user_create(email="mallory@example.com"))
    assert mallory.post("/api/social/connect", body).json()["error"]["code"] == "invalid_state"
    wrong = {**body, "provider": "facebook"}
    assert ada_client.post("/api/social/connect", wrong).json()["error"]["code"] == "invalid_state"
    # Its owner can, once.
    assert ada_client.post("/api/social/connect", body).status_code == 200
    replay = ada_client.post("/api/social/connect", body)
    assert (replay.status_code, replay.json()["error"]["code"]) == (400, "invalid_state")
    # An expired one is refused; nothing reaches the provider.
    back = consent(ada_client, "linkedin")
    ConnectState.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    calls = len(providers.linkedin.calls)
    expired = {"provider": "linkedin", "code": back["code"], "state": back["state"]}
    assert (
        ada_client.post("/api/social/connect", expired).json()["error"]["code"] == "invalid_state"
    )
    assert len(providers.linkedin.calls) == calls


def test_mastodon_without_authorizing_first_is_400(ada_client, providers):
    response = ada_client.post(
        "/api/social/connect",
        {"provider": "mastodon", "code": "x", "instance": providers.mastodon.url},
    )
    assert (response.status_code, response.json()["error"]["code"]) == (400, "authorize_first")
    assert providers.mastodon.calls == []


def test_credential_platforms_have_no_consent_page(ada_client, providers):
    for provider in ("bluesky", "devto"):
        response = ada_client.get(
            f"/api/social/connect/{provider}/authorize", {"redirectUri": REDIRECT_URI}
        )
        assert response.status_code == 400
        assert "provider" in response.json()["error"]["details"]


def test_unconfigured_platforms_are_503(ada_client):
    for provider in ("linkedin", "facebook", "instagram", "x"):
        authorize = ada_client.get(
            f"/api/social/connect/{provider}/authorize", {"redirectUri": REDIRECT_URI}
        )
        assert authorize.status_code == 503
        assert authorize.json()["error"]["code"] == "provider_not_configured"
        response = ada_client.post("/api/social/connect", {"provider": provider, "code": "x"})
        assert response.status_code == 503
    assert not SocialAccount.objects.exists()


def test_a_mastodon_instance_on_a_private_address_is_refused(ada_client, providers, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = False
    for instance in (providers.mastodon.url, "https://127.0.0.1", "https://10.1.2.3"):
        response = ada_client.get(
            "/api/social/connect/mastodon/authorize",
            {"redirectUri": REDIRECT_URI, "instance": instance},
        )
        assert response.status_code == 400
        assert "instance" in response.json()["error"]["details"]
    assert providers.mastodon.calls == []
    assert not MastodonApp.objects.exists()


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
def test_bad_input_is_400_and_stores_nothing(ada_client, providers, body, details):
    response = ada_client.post("/api/social/connect", body)
    assert response.status_code == 400
    assert response.json()["error"]["details"] == details
    assert not SocialAccount.objects.exists()
    assert all(not standin.calls for standin in vars(providers).values())


@pytest.mark.parametrize(
    ("provider", "query", "field"),
    [
        ("myspace", {"redirectUri": REDIRECT_URI}, "provider"),
        ("linkedin", {}, "redirectUri"),
        ("linkedin", {"redirectUri": "not a url"}, "redirectUri"),
        ("mastodon", {"redirectUri": REDIRECT_URI}, "instance"),
        ("mastodon", {"redirectUri": REDIRECT_URI, "instance": "ftp://x"}, "instance"),
    ],
)
def test_bad_authorize_input_is_400(ada_client, providers, provider, query, field):
    response = ada_client.get(f"/api/social/connect/{provider}/authorize", query)
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not ConnectState.objects.exists()


@pytest.mark.parametrize(
    ("provider", "body"),
    [
        ("devto", {"code": "ключ-не-латиница"}),  # sent as the api-key header
        ("devto", {"code": "key\r\nX-Injected: 1"}),
        ("bluesky", {"code": "пароль-приложения", "identifier": "ada.bsky.social"}),
    ],
)
def test_credentials_no_header_can_carry_are_400_not_500(ada_client, providers, provider, body):
    response = ada_client.post("/api/social/connect", {"provider": provider, **body}, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "provider_auth_failed"
    assert not SocialAccount.objects.exists()


@pytest.mark.parametrize("provider", ["linkedin", "facebook", "instagram", "mastodon"])
def test_oauth_providers_require_the_state(ada_client, providers, provider):
    # Without it, a victim's session posting an attacker's code links the attacker's account.
    extra = {"instance": providers.mastodon.url} if provider == "mastodon" else {}
    back = consent(ada_client, provider, **extra)
    response = ada_client.post("/api/social/connect", {"provider": provider, "code": back["code"],
                               "redirectUri": REDIRECT_URI, **extra}, format="json")  # fmt: skip
    assert (response.status_code, response.json()["error"]["code"]) == (400, "validation_error")
    assert "state" in response.json()["error"]["details"]
    assert not SocialAccount.objects.exists()


def test_a_wrong_redirect_uri_does_not_spend_the_state(ada_client, providers):
    back = consent(ada_client, "linkedin")
    body = {"provider": "linkedin", "code": back["code"], "state": back["state"]}
    elsewhere = {**body, "redirectUri": "https://evil.example.net/cb"}
    wrong = ada_client.post("/api/social/connect", elsewhere, format="json")
    assert wrong.json()["error"]["code"] == "invalid_state"
    right = ada_client.post("/api/social/connect", {**body, "redirectUri": REDIRECT_URI},
                            format="json")  # fmt: skip
    assert right.status_code == 200, right.content


@pytest.mark.parametrize(
    ("provider", "route", "answer"),
    [
        ("devto", ("GET", r"/api/users/me"), (200, [1, 2], {})),
        ("devto", ("GET", r"/api/users/me"), (200, {"username": 42}, {})),
        ("bluesky", ("POST", r"/xrpc/com\.atproto\.server\.createSession"), (200, {}, {})),
        ("linkedin", ("POST", r"/oauth/v2/accessToken"), (200, {"token": "x"}, {})),
        ("mastodon", ("POST", r"/api/v1/apps"), (200, ["not", "an", "app"], {})),
    ],
)
def test_a_provider_answer_of_an_unexpected_shape_is_502_not_500(
    ada_client, providers, provider, route, answer
):
    providers.by_provider(provider).scripted.append((*route, answer))
    if provider == "mastodon":
        query = {"redirectUri": REDIRECT_URI, "instance": providers.mastodon.url}
        response = ada_client.get("/api/social/connect/mastodon/authorize", query)
    else:
        extra = {"identifier": BLUESKY_HANDLE} if provider == "bluesky" else {}
        if provider == "linkedin":
            back = consent(ada_client, "linkedin")
            extra = {"state": back["state"], "code": back["code"]}
        body = {"provider": provider, "code": "x", **extra}
        response = ada_client.post("/api/social/connect", body, format="json")
    assert response.status_code == 502, response.content
    assert response.json()["error"]["code"] == "provider_unavailable"
    assert not SocialAccount.objects.exists()
