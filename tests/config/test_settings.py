"""Production settings refuse to start without their secrets and run locked down."""

import subprocess
import sys

from tests.servers import ROOT

PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "PATH": "/usr/bin:/bin",
}
PROBE = (
    "import django; django.setup(); from django.conf import settings as s; "
    "print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, "
    "s.MAGIC_LINK_EXPOSE_URL)"
)


def run(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**PRODUCTION, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_refuses_to_start_without_secret_key():
    result = run({"REDIS_URL": "redis://127.0.0.1:6379/0", "ALLOWED_HOSTS": "api.example.com"})
    assert result.returncode != 0
    assert "Set the SECRET_KEY environment variable" in result.stderr


def test_production_refuses_a_short_secret_key():
    result = run({"SECRET_KEY": "short", "REDIS_URL": "redis://x:6379/0", "ALLOWED_HOSTS": "a"})
    assert result.returncode != 0
    assert "SECRET_KEY must be at least 32 characters" in result.stderr


def test_production_is_locked_down():
    result = run(
        {
            "SECRET_KEY": "p" * 50,
            "REDIS_URL": "redis://127.0.0.1:6379/0",
            "ALLOWED_HOSTS": "api.example.com",
            "FIELD_ENCRYPTION_KEY": "k" * 44,
            "DJANGO_DEBUG": "true",  # ignored: production never runs with DEBUG
        }
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True", "True", "31536000", "False"]


def test_production_refuses_to_start_without_an_encryption_key():
    result = run({"SECRET_KEY": "p" * 50, "REDIS_URL": "redis://x:6379/0", "ALLOWED_HOSTS": "a"})
    assert result.returncode != 0
    assert "Set the FIELD_ENCRYPTION_KEY environment variable" in result.stderr
