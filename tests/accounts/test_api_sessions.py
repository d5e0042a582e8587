"""Sessions: /me, the two 401 messages, refresh rotation, logout and revocation."""

import base64
import json
from datetime import timedelta

import jwt
import pytest
from django.conf import settings
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services.sessions import session_issue

pytestmark = pytest.mark.django_db


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_me_returns_the_profile_with_created_at(ada_session_client, ada_with_password, prefix):
    response = ada_session_client.get(f"{prefix}/auth/me")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {
            "id": str(ada_with_password.id),
            "email": "ada@example.com",
            "full_name": "Ada",
            "avatar_url": "",
            "role": "user",
            "credits_remaining": 20,
            "monthly_quota": 20,
            "plan": "free",
            "email_verified": False,
            "created_at": ada_with_password.created_at.isoformat().replace("+00:00", "Z"),
        },
    }


def test_missing_header(api):
    response = api.get("/api/auth/me")
    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "message": "Missing Authorization Header",
        "error": {"code": "not_authenticated", "details": {}},
    }
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def _forge(payload: dict, header: dict) -> str:
    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    return f"{part(header)}.{part(payload)}."


@pytest.mark.parametrize(
    "make_token",
    [
        pytest.param(lambda s, u: "garbage", id="garbage"),
        pytest.param(lambda s, u: s.token[:-4] + "AAAA", id="tampered-signature"),
        pytest.param(lambda s, u: s.refresh_token, id="refresh-token-as-access"),
        pytest.param(
            lambda s, u: _forge(
                {**jwt.decode(s.token, options={"verify_signature": False})},
                {"alg": "none", "typ": "JWT"},
            ),
            id="alg-none",
        ),
        pytest.param(
            lambda s, u: jwt.encode(
                {**jwt.decode(s.token, options={"verify_signature": False}), "user_id": "x"},
                "another-key-entirely-0123456789abcdef",
                algorithm="HS256",
            ),
            id="wrong-key",
        ),
        pytest.param(
            lambda s, u: jwt.encode(
                {
                    **jwt.decode(s.token, options={"verify_signature": False}),
                    "exp": int((timezone.now() - timedelta(minutes=1)).timestamp()),
                },
                settings.SECRET_KEY,
                algorithm="HS256",
            ),
            id="expired",
        ),
    ],
)
def test_bad_tokens_are_401_invalid(ada_session, ada_with_password, make_token):
    response = bearer(make_token(ada_session, ada_with_password)).get("/api/auth/me")
    assert response.status_code == 401
    assert response.json() == {
        "success": False,
        "message": "Unauthorized: Session expired or invalid",
        "error": {"code": "invalid_token", "details": {}},
    }


@pytest.mark.parametrize("header", ["Basic dXNlcjpwYXNz", "Bearer", "Bearer a b", "Token abc"])
def test_malformed_headers_are_invalid_not_missing(api, header):
    api.credentials(HTTP_AUTHORIZATION=header)
    response = api.get("/api/auth/me")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_token"


def test_inactive_user_token_is_401(ada_session, ada_with_password):
    User.objects.filter(pk=ada_with_password.pk).update(is_active=False)
    assert bearer(ada_session.token).get("/api/auth/me").status_code == 401


def test_access_token_lives_60_minutes_and_refresh_14_days(ada_session):
    access = jwt.decode(ada_session.token, options={"verify_signature": False})
    refresh = jwt.decode(ada_session.refresh_token, options={"verify_signature": False})
    assert access["exp"] - access["iat"] == 60 * 60
    assert refresh["exp"] - refresh["iat"] == 14 * 24 * 60 * 60


def test_refresh_rotates_and_the_old_token_is_spent(api, ada_session):
    response = api.post("/api/auth/refresh", {"refreshToken": ada_session.refresh_token})
    assert response.status_code == 200
    data = response.json()["data"]
    assert set(data) == {"token", "refreshToken"}
    assert data["refreshToken"] != ada_session.refresh_token
    assert bearer(data["token"]).get("/api/auth/me").status_code == 200
    reused = api.post("/api/auth/refresh", {"refreshToken": ada_session.refresh_token})
    assert reused.status_code == 401
    assert reused.json()["error"]["code"] == "invalid_token"
    # The rotated token still works once.
    assert api.post("/api/auth/refresh", {"refreshToken": data["refreshToken"]}).status_code == 200


@pytest.mark.parametrize("raw", ["", "nonsense"])
def test_refresh_with_garbage(api, raw):
    response = api.post("/api/auth/refresh", {"refreshToken": raw})
    assert response.status_code in (400, 401)
    if raw:
        assert response.json()["error"]["code"] == "invalid_token"


def test_refresh_refuses_an_access_token(api, ada_session):
    assert api.post("/api/auth/refresh", {"refreshToken": ada_session.token}).status_code == 401


def test_logout_kills_the_refresh_token(ada_session_client, api, ada_session):
    response = ada_session_client.post(
        "/api/auth/logout", {"refreshToken": ada_session.refresh_token}
    )
    assert response.status_code == 200
    assert response.json() == {"success": True, "message": "Logged out", "data": {"success": True}}
    assert (
        api.post("/api/auth/refresh", {"refreshToken": ada_session.refresh_token}).status_code
        == 401
    )
    # The whole sign-in ended: its access token too, at once (not up to 60 minutes later).
    again = ada_session_client.post("/api/auth/logout", {"refreshToken": ada_session.refresh_token})
    assert (again.status_code, again.json()["error"]["code"]) == (401, "invalid_token")
    assert ada_session_client.get("/api/auth/me").status_code == 401


def test_logout_ends_only_its_own_sign_in(ada_session_client, ada_with_password, ada_session):
    from tests.factories import client_for

    other = client_for(ada_with_password)
    assert (
        ada_session_client.post(
            "/api/auth/logout", {"refreshToken": ada_session.refresh_token}
        ).status_code
        == 200
    )
    assert other.get("/api/auth/me").status_code == 200


def test_a_live_feed_ticket_of_a_logged_out_session_opens_nothing(ada_session_client, ada_session):
    from notifications.services.livefeed import ticket_redeem

    ticket = ada_session_client.post("/api/events/ticket").json()["data"]["ticket"]
    assert (
        ada_session_client.post(
            "/api/auth/logout", {"refreshToken": ada_session.refresh_token}
        ).status_code
        == 200
    )
    assert ticket_redeem(ticket=ticket) is None


def test_logout_needs_the_bearer_token(api, ada_session):
    response = api.post("/api/auth/logout", {"refreshToken": ada_session.refresh_token})
    assert response.status_code == 401
    assert response.json()["message"] == "Missing Authorization Header"
    assert (
        api.post("/api/auth/refresh", {"refreshToken": ada_session.refresh_token}).status_code
        == 200
    )


def test_logout_with_someone_elses_refresh_token_is_refused(
    ada_session_client, api, passwordless_user
):
    other = session_issue(user=passwordless_user)
    response = ada_session_client.post("/api/auth/logout", {"refreshToken": other.refresh_token})
    # The body's token is bad input (400): a 401 would tell the client its own session died.
    assert (response.status_code, response.json()["error"]["code"]) == (400, "validation_error")
    assert api.post("/api/auth/refresh", {"refreshToken": other.refresh_token}).status_code == 200


@pytest.mark.parametrize("token", ["not-a-jwt", "a.b.c", "eyJhbGciOiJub25lIn0.e30."])
def test_logout_with_a_malformed_refresh_token_is_400_and_the_session_lives(
    ada_session_client, token
):
    response = ada_session_client.post("/api/auth/logout", {"refreshToken": token})
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "validation_error",
        "details": {"refreshToken": ["Not a valid, unexpired refresh token of this account."]},
    }
    assert ada_session_client.get("/api/auth/me").status_code == 200


def test_logout_everywhere_revokes_every_session(
    ada_session_client, api, ada_with_password, ada_session
):
    second = session_issue(user=ada_with_password)
    response = ada_session_client.post(
        "/api/auth/logout", {"refreshToken": ada_session.refresh_token, "everywhere": True}
    )
    assert response.status_code == 200
    assert bearer(second.token).get("/api/auth/me").status_code == 401
    assert api.post("/api/auth/refresh", {"refreshToken": second.refresh_token}).status_code == 401
    assert ada_session_client.get("/api/auth/me").status_code == 401


def _me(token: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client.get("/api/auth/me").status_code


def test_replaying_a_rotated_refresh_token_ends_that_whole_session(api, ada_with_password):
    from rest_framework_simplejwt.token_blacklist.models import BlacklistedToken

    stolen = session_issue(user=ada_with_password)
    laptop = session_issue(user=ada_with_password)  # another sign-in of the same person
    # The thief refreshes first and holds the newest pair of the family...
    thief = api.post("/api/auth/refresh", {"refreshToken": stolen.refresh_token}).json()["data"]
    BlacklistedToken.objects.update(blacklisted_at=timezone.now() - timedelta(minutes=5))
    # ...then the owner's client presents the rotated token again: a replay.
    replay = api.post("/api/auth/refresh", {"refreshToken": stolen.refresh_token})
    assert replay.status_code == 401
    # The whole family is dead, the thief's newest tokens included...
    assert _me(thief["token"]) == 401
    assert api.post("/api/auth/refresh", {"refreshToken": thief["refreshToken"]}).status_code == 401
    # ...and the other session lives on.
    assert _me(laptop.token) == 200
    assert api.post("/api/auth/refresh", {"refreshToken": laptop.refresh_token}).status_code == 200


def test_a_client_refreshing_twice_at_once_keeps_its_session(api, ada_with_password):
    session = session_issue(user=ada_with_password)
    first = api.post("/api/auth/refresh", {"refreshToken": session.refresh_token}).json()["data"]
    # The second tab's refresh a moment later loses the race but ends nothing.
    assert api.post("/api/auth/refresh", {"refreshToken": session.refresh_token}).status_code == 401
    assert _me(first["token"]) == 200


def test_rotation_never_extends_a_session_past_its_absolute_lifetime(
    api, ada_with_password, settings
):
    import time

    settings.SESSION_MAX_AGE_DAYS = 30
    day = 86400
    fresh = session_issue(user=ada_with_password, auth_time=int(time.time()) - 29 * day)
    renewed = api.post("/api/auth/refresh", {"refreshToken": fresh.refresh_token})
    assert renewed.status_code == 200
    # The new pair keeps the sign-in time: a month after signing in, it is over.
    claims = jwt.decode(renewed.json()["data"]["refreshToken"], options={"verify_signature": False})
    assert claims["auth_time"] == fresh_auth_time(fresh.refresh_token)
    old = session_issue(user=ada_with_password, auth_time=int(time.time()) - 31 * day)
    assert api.post("/api/auth/refresh", {"refreshToken": old.refresh_token}).status_code == 401


def fresh_auth_time(refresh_token: str) -> int:
    return int(jwt.decode(refresh_token, options={"verify_signature": False})["auth_time"])
