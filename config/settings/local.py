"""Development settings: the embedded defaults (SQLite, no Redis) that `make run` uses."""

from config.settings.base import *  # noqa: F403
from config.settings.base import derive_key, env

ENVIRONMENT = env.str("DJANGO_ENV", default="development")
DEBUG = env.bool("DJANGO_DEBUG", default=True)
SECRET_KEY = env.str("SECRET_KEY", default="dev-only-insecure-key-change-me-0123456789abcdef")
MAGIC_LINK_EXPOSE_URL = env.bool("MAGIC_LINK_EXPOSE_URL", default=True)
# Secrets at rest (provider tokens) are encrypted with this key; derived so development needs none.
FIELD_ENCRYPTION_KEY = env.str("FIELD_ENCRYPTION_KEY", default="") or derive_key(
    SECRET_KEY, purpose="field-encryption"
)
# Serve static files straight from the apps (no collectstatic needed in development).
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
