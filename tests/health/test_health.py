"""GET /api/health checks real dependencies and answers 503 within 1 s when one fails."""

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import requests

import config
from tests.servers import api_server, free_port, server_env

pytestmark = pytest.mark.django_db


def test_healthy_service_answers_the_bare_object(api):
    response = api.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"status", "timestamp", "version", "uptime", "services"}
    assert body["status"] == "ok"
    assert body["version"] == config.__version__
    assert body["services"] == {
        "database": "connected",
        "cache": "connected",
        "aiProviderProxy": "ready",
    }
    assert body["timestamp"].endswith("Z")
    assert isinstance(body["uptime"], float)
    assert body["uptime"] >= 0
    assert response["Cache-Control"] == "no-store"


def test_v1_health_is_the_envelope(api):
    response = api.get("/api/v1/health")
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert set(body["data"]) == {"status", "timestamp", "environment"}
    assert body["data"]["status"] == "ok"
    assert body["data"]["environment"] == "test"


def test_unconfigured_ai_provider_degrades(api, settings):
    settings.AI_PROVIDER = "openai"
    settings.AI_BASE_URL = ""
    settings.AI_MODEL = ""
    response = api.get("/api/health")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["services"]["aiProviderProxy"] == "unavailable"
    assert body["error"] == "AI provider not configured: AI_BASE_URL, AI_MODEL"


def test_unreachable_cache_degrades(api, settings):
    dead_redis = f"redis://127.0.0.1:{free_port()}/0"
    settings.REDIS_URL = dead_redis
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": dead_redis,
            "OPTIONS": {"socket_connect_timeout": 0.3, "socket_timeout": 0.3},
        }
    }
    response = api.get("/api/health")
    assert response.status_code == 503
    body = response.json()
    assert body["services"]["cache"] == "disconnected"
    assert body["services"]["database"] == "connected"
    assert body["error"] == "cache: unavailable (ConnectionError)"


def test_health_is_exempt_from_the_rate_limit(api, settings):
    # Probes come often from few addresses; a 429 would get a healthy server restarted.
    settings.RATE_LIMIT_PER_MINUTE = 1
    for _ in range(3):
        assert api.get("/api/health").status_code == 200


@pytest.fixture
def black_hole() -> Iterator[int]:
    """A TCP port that accepts connections and never says a word (a hung database)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


@pytest.mark.server
def test_stopped_database_is_503_disconnected():
    env = server_env(DATABASE_URL=f"postgres://postgres@127.0.0.1:{free_port()}/nothing")
    with api_server(env) as base:
        started = time.monotonic()
        response = requests.get(f"{base}/api/health", timeout=5)
        elapsed = time.monotonic() - started
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "degraded"
    assert body["services"]["database"] == "disconnected"
    assert body["services"]["cache"] == "connected"
    assert body["error"] == "database: unavailable (OperationalError)"
    assert elapsed < 1.0


@pytest.mark.server
def test_hung_database_still_answers_within_one_second(black_hole):
    env = server_env(DATABASE_URL=f"postgres://postgres@127.0.0.1:{black_hole}/nothing")
    with api_server(env, threads=4) as base:
        for _ in range(3):  # later probes share the hung attempt instead of piling up
            started = time.monotonic()
            response = requests.get(f"{base}/api/health", timeout=5)
            elapsed = time.monotonic() - started
            assert response.status_code == 503
            assert response.json()["error"] == "database: no answer within 0.8 s"
            assert elapsed < 1.0


@pytest.mark.postgres
def test_probe_reconnects_after_its_connection_is_killed(api):
    """A database restart breaks the probe's kept connection; the next probe still passes."""
    from django.db import connection

    assert api.get("/api/health").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    response = api.get("/api/health")
    assert response.status_code == 200, response.json()


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "10.42.0.17:8000", "[fd00::17]:8000", "x"])
@pytest.mark.parametrize("path", ["/api/health", "/api/v1/health"])
def test_probes_answer_whatever_the_host(api, settings, host, path):
    # The image's HEALTHCHECK probes 127.0.0.1; an orchestrator probes the pod's address.
    settings.ALLOWED_HOSTS = ["api.example.com"]
    response = api.get(path, HTTP_HOST=host)
    assert response.status_code == 200, response.content


def test_a_bad_host_elsewhere_is_a_json_400_logged_once_as_a_warning(api, settings, caplog):
    settings.ALLOWED_HOSTS = ["api.example.com"]
    with caplog.at_level("INFO"):
        for path in ("/api/social/posts", "/api/v1/auth/me", "/api/nope", "/admin/login/"):
            response = api.get(path, HTTP_HOST="evil.example.net")
            assert response.status_code == 400, path
            assert response.json()["error"]["code"] == "bad_request"
        response = api.post("/api/auth/login", {"email": "a@example.com"}, format="json",
                            HTTP_HOST="evil.example.net")  # fmt: skip
        assert response.status_code == 400
    records = [r for r in caplog.records if "evil.example.net" in r.getMessage()]
    assert [r.levelname for r in records] == ["WARNING"]
    assert not [r for r in caplog.records if r.levelname == "ERROR"]
    assert api.get("/api/v1/health", HTTP_HOST="api.example.com").status_code == 200
