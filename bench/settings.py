"""Settings of every bench's server: local defaults, the bench route, an unreachable rate limit."""

from config.settings.local import *  # noqa: F403

ROOT_URLCONF = "bench.urls"
DEBUG = False
# The bench always talks to 127.0.0.1, whatever ALLOWED_HOSTS the shell happens to export.
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
# Thousands of requests a minute from one address: the limiter still counts (its cost is part
# of what is measured) but must never answer 429.
RATE_LIMIT_PER_MINUTE = 10**9
# Keeps the bench's counters apart from a development server's when they share one Redis.
RATE_LIMIT_KEY_PREFIX = "bench:rl"

# Quiet: only errors are logged, so no log write lands inside a measurement, while a failing
# request still leaves the traceback that bench.harness prints when a bench stops on an error.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django.request": {"level": "ERROR", "handlers": ["console"], "propagate": False},
    },
}
