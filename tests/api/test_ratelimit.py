"""100 requests a minute per client address, counted atomically and shared by processes."""

import uuid

import pytest
import requests
from django.test import RequestFactory

from accounts.models import User
from core.ratelimit import client_ip
from tests.servers import api_server, server_env

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]


@pytest.fixture
def limit_100(settings):
    settings.RATE_LIMIT_PER_MINUTE = 100


def test_the_101st_request_in_a_minute_is_429(api, limit_100):
    for n in range(100):
        response = api.get("/api/_probe/raise/ok")
        assert response.status_code == 200, n
        assert response["RateLimit"].startswith(f'"default";r={99 - n};t=')
    response = api.get("/api/v1/_probe/raise/ok")
    assert response.status_code == 429
    assert response.json() == {
        "success": False,
        "message": "Too many requests. Try again later.",
        "error": {
            "code": "rate_limited",
            "details": {"limit": 100, "retryAfter": int(response["Retry-After"])},
        },
    }
    assert 1 <= int(response["Retry-After"]) <= 60
    assert response["RateLimit-Policy"] == '"default";q=100;w=60'
    assert response["RateLimit"].startswith('"default";r=0;')


def test_a_limited_request_changes_nothing(api, settings):
    settings.RATE_LIMIT_PER_MINUTE = 1
    api.get("/api/_probe/raise/ok")
    response = api.post("/api/_probe/write", {"email": "late@example.com"}, format="json")
    assert response.status_code == 429
    assert not User.objects.filter(email="late@example.com").exists()


def test_every_response_carries_the_headers(api, limit_100):
    for path in ("/api/_probe/raise/ok", "/api/nope", "/api/v1/_probe/raise/missing"):
        response = api.get(path)
        assert response["RateLimit-Policy"] == '"default";q=100;w=60'
        assert response["RateLimit"].startswith('"default";r=')


def test_clients_have_separate_budgets(api, settings):
    settings.RATE_LIMIT_PER_MINUTE = 2
    for _ in range(2):
        assert api.get("/api/v1/_probe/raise/ok", REMOTE_ADDR="10.0.0.1").status_code == 200
    assert api.get("/api/v1/_probe/raise/ok", REMOTE_ADDR="10.0.0.1").status_code == 429
    assert api.get("/api/v1/_probe/raise/ok", REMOTE_ADDR="10.0.0.2").status_code == 200


def test_forwarded_for_is_ignored_without_trusted_proxies(api, settings):
    settings.RATE_LIMIT_PER_MINUTE = 1
    assert api.get("/api/v1/_probe/raise/ok", HTTP_X_FORWARDED_FOR="1.1.1.1").status_code == 200
    # A new spoofed address does not buy a new budget.
    assert api.get("/api/v1/_probe/raise/ok", HTTP_X_FORWARDED_FOR="2.2.2.2").status_code == 429


@pytest.mark.parametrize(
    ("trusted", "remote", "forwarded", "expected"),
    [
        (0, "192.0.2.1", "203.0.113.9", "192.0.2.1"),
        (1, "192.0.2.1", "203.0.113.9", "203.0.113.9"),
        # The client prepended a fake entry; one trusted proxy appended the real one.
        (1, "192.0.2.1", "6.6.6.6, 203.0.113.9", "203.0.113.9"),
        (2, "192.0.2.1", "6.6.6.6, 203.0.113.9, 198.51.100.7", "203.0.113.9"),
        # Fewer entries than trusted proxies: nothing to trust, use the socket.
        (2, "192.0.2.1", "203.0.113.9", "192.0.2.1"),
        (1, "192.0.2.1", "not-an-ip", "not-an-ip"),
        (0, "2001:db8:1:2:3:4:5:6", "", "2001:db8:1:2::/64"),
    ],
)
def test_client_ip(settings, trusted, remote, forwarded, expected):
    settings.TRUSTED_PROXY_COUNT = trusted
    request = RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected


@pytest.mark.redis
def assert_one_budget(env: dict[str, str]) -> None:
    """Two server processes answer alternately: together they let the budget through once."""
    with api_server(env) as first, api_server(env) as second:
        responses = [
            requests.get(f"{(first if n % 2 else second)}/api/v1/nope", timeout=5)
            for n in range(120)
        ]
    statuses = [r.status_code for r in responses]
    # The servers' readiness polls spent a little of the budget already: the first answer
    # says how much was left, and exactly that many more requests pass, then none.
    left = int(responses[0].headers["RateLimit"].split("r=")[1].split(";")[0])
    assert left >= 90
    assert statuses == [404] * (left + 1) + [429] * (120 - left - 1)
    # Each process alone would have let all 60 of its requests through.


@pytest.mark.server
def test_two_processes_share_one_budget_on_redis(redis_url, tmp_path):
    assert_one_budget(server_env(
        REDIS_URL=redis_url,
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        RATE_LIMIT_PER_MINUTE="100",
        RATE_LIMIT_KEY_PREFIX=f"test-rl-{uuid.uuid4().hex}",
    ))  # fmt: skip


@pytest.mark.server
def test_two_processes_share_one_budget_embedded(tmp_path):
    # No Redis: the counters are files every process of the deployment shares.
    assert_one_budget(server_env(
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        RATE_LIMIT_PER_MINUTE="100",
        RATE_LIMIT_FILE_DIR=str(tmp_path / "ratelimit"),
    ))  # fmt: skip


def test_health_probes_are_never_rate_limited(api, settings):
    settings.RATE_LIMIT_PER_MINUTE = 5
    for path in ("/api/health", "/api/v1/health") * 10:
        response = api.get(path)
        assert response.status_code == 200, path
        assert "RateLimit" not in response
    # ...and they spend nothing of the address's budget.
    for _ in range(5):
        assert api.get("/api/v1/_probe/raise/ok").status_code == 200
    assert api.get("/api/v1/_probe/raise/ok").status_code == 429
