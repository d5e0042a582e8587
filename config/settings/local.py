"""Development settings: the embedded defaults (SQLite, no Redis) that `make run` uses."""

from config.settings.base import *  # noqa: F403
from config.settings.base import env

ENVIRONMENT = env.str("DJANGO_ENV", default="development")
DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env.str("SECRET_KEY", default="dev-only-insecure-key-change-me-0123456789abcdef")
MAGIC_LINK_EXPOSE_URL = env.bool("MAGIC_LINK_EXPOSE_URL", default=True)
# Serve static files straight from the apps (no collectstatic needed in development).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
