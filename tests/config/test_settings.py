"""Production settings refuse to start on anything unsafe, naming every problem, and run locked
down otherwise."""

import subprocess
import sys

import pytest

from tests.servers import ROOT

PRODUCTION = {
    "DJANGO_SETTINGS_MODULE": "config.settings.production",
    "PATH": "/usr/bin:/bin",
}
PROBE = (
    "import django; django.setup(); from django.conf import settings as s; "
    "print(s.DEBUG, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, "
    "s.MAGIC_LINK_EXPOSE_URL, s.EMAIL_BACKEND)"
)
# A configuration that passes every check; each test below breaks one thing in it.
VALID = {
    "SECRET_KEY": "Zq7-vN2kR9xLm4Tb8WcYp1Hs6Jd3Fg0Ua5Ee_Ko",
    "DATABASE_URL": "postgres://app@db.internal:5432/app",
    "REDIS_URL": "redis://cache.internal:6379/0",
    "ALLOWED_HOSTS": "api.example.com",
    "FIELD_ENCRYPTION_KEY": "hZ3oJ0QvE8w3b1n9V1mM4Q2kq8qQ9m1YvJbq3T0m7eA=",
    "EMAIL_HOST": "smtp.example.com",
    "PUBLIC_URL": "https://api.example.com",
}


def run(env: dict[str, str | None]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**PRODUCTION, **{k: v for k, v in env.items() if v is not None}},
        capture_output=True,
        text=True,
        timeout=60,
    )


def refused(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode != 0, result.stdout
    return result.stderr


@pytest.mark.server
def test_production_is_locked_down():
    result = run({**VALID, "DJANGO_DEBUG": "true"})  # DEBUG is ignored: never on in production
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "False",
        "True",
        "True",
        "31536000",
        "False",
        "django.core.mail.backends.smtp.EmailBackend",
    ]


@pytest.mark.server
def test_production_refuses_to_start_without_secret_key():
    assert "Set the SECRET_KEY environment variable" in refused(run({**VALID, "SECRET_KEY": None}))


@pytest.mark.server
def test_production_refuses_to_start_without_an_encryption_key():
    stderr = refused(run({**VALID, "FIELD_ENCRYPTION_KEY": None}))
    assert "Set the FIELD_ENCRYPTION_KEY environment variable" in stderr


@pytest.mark.server
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"SECRET_KEY": "short"}, "SECRET_KEY must be at least 32 characters"),
        ({"SECRET_KEY": "p" * 50}, "SECRET_KEY looks weak"),
        (
            {"SECRET_KEY": "dev-only-insecure-key-change-me-0123456789abcdef"},
            "SECRET_KEY looks weak or like a development key",
        ),
        ({"FIELD_ENCRYPTION_KEY": ""}, "FIELD_ENCRYPTION_KEY must list one or more keys"),
        ({"FIELD_ENCRYPTION_KEY": "too-short"}, "each key must be 32 bytes"),
        (
            {"FIELD_ENCRYPTION_KEY": VALID["FIELD_ENCRYPTION_KEY"] + ",k"},
            "each key must be 32 bytes",
        ),
        ({"DATABASE_URL": None}, "Set the DATABASE_URL environment variable"),
        ({"REDIS_URL": None}, "Set the REDIS_URL environment variable"),
        ({"REDIS_URL": ""}, "Set the REDIS_URL environment variable"),
        ({"ALLOWED_HOSTS": "*"}, "ALLOWED_HOSTS must name the hosts served"),
        ({"MAGIC_LINK_EXPOSE_URL": "true"}, "MAGIC_LINK_EXPOSE_URL must be off"),
        ({"OUTBOUND_ALLOW_PRIVATE": "true"}, "OUTBOUND_ALLOW_PRIVATE must be off"),
        ({"EMAIL_HOST": None}, "EMAIL_HOST is required for the SMTP e-mail backend"),
    ],
)
def test_production_refuses_an_unsafe_setting(change, message):
    assert message in refused(run({**VALID, **change}))


@pytest.mark.server
def test_every_missing_secret_is_named_at_once():
    # One failed start names them all (it took three starts to learn of three).
    missing = ("SECRET_KEY", "FIELD_ENCRYPTION_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL")
    stderr = refused(run({**VALID, **dict.fromkeys(missing)}))
    for name in missing:
        assert f"Set the {name} environment variable" in stderr
    assert stderr.count("Production settings refused") == 1


@pytest.mark.server
@pytest.mark.parametrize(
    "public_url", [None, "http://0.0.0.0:8000", "http://[::]:8000", "ftp://api.example.com", ""]
)
def test_production_refuses_a_public_url_that_is_no_real_address(public_url):
    assert "PUBLIC_URL must be the API's public address" in refused(
        run({**VALID, "PUBLIC_URL": public_url})
    )


@pytest.mark.server
def test_each_missing_variable_is_named_once():
    stderr = refused(run({**VALID, "DATABASE_URL": None, "REDIS_URL": None}))
    assert stderr.count("DATABASE_URL") == 1
    assert stderr.count("REDIS_URL") == 1


@pytest.mark.server
@pytest.mark.parametrize("url", ["sqlite:////srv/app/db.sqlite3", "sqlite:///:memory:"])
def test_production_refuses_a_sqlite_database(url):
    stderr = refused(run({**VALID, "DATABASE_URL": url}))
    assert "DATABASE_URL must name a PostgreSQL database" in stderr


@pytest.mark.server
@pytest.mark.parametrize("public_url", ["http://localhost:8000", "https://api.example.com"])
def test_a_public_url_that_browsers_reach_is_accepted(public_url):
    # A bind address is refused, not a name: the compose stack is reached at localhost.
    result = run({**VALID, "PUBLIC_URL": public_url})
    assert result.returncode == 0, result.stderr


@pytest.mark.server
def test_every_problem_is_named_at_once():
    stderr = refused(run({**VALID, "DATABASE_URL": None, "ALLOWED_HOSTS": "*"}))
    assert "Set the DATABASE_URL environment variable" in stderr
    assert "ALLOWED_HOSTS must name the hosts served" in stderr


@pytest.mark.server
def test_console_mail_is_allowed_when_chosen_explicitly():
    backend = "django.core.mail.backends.console.EmailBackend"
    result = run({**VALID, "EMAIL_HOST": None, "EMAIL_BACKEND": backend})
    assert result.returncode == 0, result.stderr
    # Ours in its place: each message a log line, its links redacted (core/mail.py).
    assert result.stdout.split()[-1] == "core.mail.ConsoleEmailBackend"


def test_the_version_is_the_one_pyproject_declares():
    import tomllib

    import config

    with (ROOT / "pyproject.toml").open("rb") as file:
        assert tomllib.load(file)["project"]["version"] == config.__version__


@pytest.mark.server
def test_the_server_exits_once_on_refused_settings():
    # Not restarting its workers forever while the container looks alive.
    from tests.servers import free_port

    result = subprocess.run(
        [sys.executable, "-m", "config.serve"],
        cwd=ROOT,
        env={**PRODUCTION, **VALID, "SECRET_KEY": "short", "PORT": str(free_port())},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.count("SECRET_KEY must be at least 32 characters") == 1
    assert "Traceback" not in result.stderr


def test_the_access_log_never_shows_a_ticket_or_a_resume_point():
    import logging

    from config.serve import RedactedQueryFilter

    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/api/events/stream?ticket=evt_secret123&lastEventId=42&x=1",
         "1.1", 200),
        None,
    )  # fmt: skip
    assert RedactedQueryFilter().filter(record)
    line = record.getMessage()
    assert "evt_secret123" not in line
    assert "lastEventId=42" not in line
    assert "ticket=[redacted]" in line
    assert "&x=1" in line


def test_the_servers_own_lines_follow_the_settings_log_format(settings):
    """config.serve reads LOG_FORMAT from the settings (as the application's lines do), not
    from the environment a second time."""
    from config.serve import log_config

    settings.LOG_FORMAT = "json"
    formatters = log_config()["formatters"]
    assert formatters["default"] == formatters["access"] == {"()": "core.logs.JsonFormatter"}

    settings.LOG_FORMAT = "text"
    assert log_config()["formatters"]["default"]["()"] == "uvicorn.logging.DefaultFormatter"
