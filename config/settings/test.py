"""Test settings: fast hashing, in-process Celery, mail kept in memory."""

import os
import tempfile

from config.settings.base import *  # noqa: F403
from config.settings.base import derive_key, env

ENVIRONMENT = "test"
DEBUG = False
SECRET_KEY = "test-only-key-0123456789abcdef0123456789abcdef"  # noqa: S105 (tests only)
FIELD_ENCRYPTION_KEY = derive_key(SECRET_KEY, purpose="field-encryption")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# Tests that count requests set their own limit; the rest must never trip it.
RATE_LIMIT_PER_MINUTE = env.int("TEST_RATE_LIMIT_PER_MINUTE", default=100_000)
API_KEY_RATE_LIMIT_PER_MINUTE = env.int("TEST_API_KEY_RATE_LIMIT_PER_MINUTE", default=100_000)
# In-process counters (each test counts from zero); real server processes started by tests
# use the shared file store of their own database (tests/server_settings.py).
RATE_LIMIT_FILE_DIR = ""
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
# Metrics are recorded in tests (GET /metrics is tested); this process's files in a folder of
# its own.
METRICS_TOKEN = "test-metrics-token"  # noqa: S105 (tests only)
METRICS_DIR = os.path.join(tempfile.gettempdir(), f"fgp-test-metrics-{os.getpid()}")
if os.environ.get("PYTEST_XDIST_WORKER"):
    # A pytest-xdist worker inherits the folder its controller chose when it set Django up;
    # it records in its own (core.metrics.process_default), so a test counts only its requests.
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
# Provider stand-ins and test receivers listen on 127.0.0.1; the guard's own tests turn it off.
OUTBOUND_ALLOW_PRIVATE = True
# Every stand-in is one host (127.0.0.1), where production has one per instance: tests of the
# per-host bound set their own; the rest must never trip it.
OUTBOUND_PER_HOST_CONCURRENCY = 10_000
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, as the embedded deployment has, not SQLite's in-memory database: there, threads
    # (the scheduler's timers, concurrent runs) fail at once with "table is locked" instead of
    # waiting for the lock as WAL and the busy timeout make them. One file per test process.
    DATABASES["default"]["TEST"] = {
        "NAME": os.path.join(tempfile.gettempdir(), f"fgp-test-{os.getpid()}.sqlite3")
    }
