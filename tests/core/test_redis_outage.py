"""Redis down: every counter fails open (logged), sign-in and magic links keep working, queued
work runs in-process, and health says the cache is down instead of staying green."""

import logging

import pytest
import requests
from django.test import override_settings

from core import ratelimit
from tests.servers import api_server, free_port, migrate, server_env


@pytest.fixture
def dead_redis_url() -> str:
    return f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there


@pytest.mark.server
def test_sign_in_and_magic_links_work_with_redis_down(tmp_path, dead_redis_url):
    env = server_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", REDIS_URL=dead_redis_url)
    migrate(env)
    with api_server(env) as base:
        signup = requests.post(
            f"{base}/api/auth/login",
            json={"email": "ada@example.com", "password": "Correct-horse-7"},
            timeout=30,
        )
        assert signup.status_code == 200, signup.text
        assert signup.json()["data"]["token"]
        # The edge limiter counted nothing, so it sends no RateLimit headers (fail open).
        assert "RateLimit" not in signup.headers

        wrong = requests.post(
            f"{base}/api/auth/login",
            json={"email": "ada@example.com", "password": "wrong-password-1"},
            timeout=30,
        )
        assert wrong.status_code == 401  # the failure counters fail open too: no 500

        again = requests.post(
            f"{base}/api/auth/login",
            json={"email": "ada@example.com", "password": "Correct-horse-7"},
            timeout=30,
        )
        assert again.status_code == 200, again.text

        link = requests.post(
            f"{base}/api/auth/magic-link", json={"email": "grace@example.com"}, timeout=30
        )
        assert link.status_code == 200, link.text
        token = link.json()["data"]["magicUrl"].split("token=")[1]
        verified = requests.post(
            f"{base}/api/auth/magic-link/verify", json={"token": token}, timeout=30
        )
        assert verified.status_code == 200, verified.text

        health = requests.get(f"{base}/api/health", timeout=30)
        assert health.status_code == 503
        assert health.json()["services"]["cache"] == "disconnected"


def test_every_counter_fails_open_and_logs(dead_redis_url, caplog):
    with override_settings(REDIS_URL=dead_redis_url), caplog.at_level(logging.WARNING):
        window = ratelimit.hit("probe", limit=1, period=60)
        peeked = ratelimit.peek("probe", limit=1, period=60)
        ratelimit.reset("probe")
    assert (window.counted, window.exceeded) == (False, False)
    assert (peeked.counted, peeked.count) == (False, 0)
    messages = [record.getMessage() for record in caplog.records]
    assert messages.count("Rate-limit store unavailable; probe not counted (failing open)") == 2
    assert "Rate-limit store unavailable; probe not reset" in messages
