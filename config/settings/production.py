"""Production settings: secrets required, DEBUG off, secure cookies and HSTS.

The process refuses to start on any setting that would be unsafe or surprising in production,
and names every problem at once, so one failed deploy tells the operator all there is to fix.
"""

import binascii
import contextlib
import ipaddress
import os
from base64 import urlsafe_b64decode
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.base import CONSOLE_EMAIL_BACKEND, DATABASES, PUBLIC_URL, env

ENVIRONMENT = env.str("DJANGO_ENV", default="production")
DEBUG = False
# Required, with no fallback: a missing one stops the process (named with every other problem
# below, not one per failed start), never falls back to a known value.
REQUIRED = ("SECRET_KEY", "FIELD_ENCRYPTION_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL")
WHY_REQUIRED = {
    "DATABASE_URL": "a PostgreSQL database; a local SQLite file is not enough",
    # Several server processes must share one rate-limit count and one cache.
    "REDIS_URL": "every process shares the cache, the rate-limit counts and the broker",
}
SECRET_KEY = env.str("SECRET_KEY", default="")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=[])
# Its own secret: rotating SECRET_KEY must not make stored provider tokens unreadable.
FIELD_ENCRYPTION_KEY = env.str("FIELD_ENCRYPTION_KEY", default="")
MAGIC_LINK_EXPOSE_URL = env.bool("MAGIC_LINK_EXPOSE_URL", default=False)
OUTBOUND_ALLOW_PRIVATE = env.bool("OUTBOUND_ALLOW_PRIVATE", default=False)
# Starting credits only for addresses proven by a magic link (no farming by throwaway e-mails).
SIGNUP_CREDITS_ON = env.str("SIGNUP_CREDITS_ON", default="verified")
# Mail goes out over SMTP unless the operator explicitly chose another backend.
EMAIL_BACKEND = env.str("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend")
if EMAIL_BACKEND == "django.core.mail.backends.console.EmailBackend":
    EMAIL_BACKEND = CONSOLE_EMAIL_BACKEND  # as in base: never a sign-in link on the console

# Substrings of the keys shipped in this repository and of keys people type by hand.
WEAK_KEY_MARKERS = ("dev-only", "insecure", "change-me", "changeme", "secret", "test-only")
MIN_SECRET_KEY_LENGTH = 32
MIN_SECRET_KEY_DISTINCT_CHARACTERS = 8


def _secret_key_problem(key: str) -> str | None:
    if len(key) < MIN_SECRET_KEY_LENGTH:
        return f"SECRET_KEY must be at least {MIN_SECRET_KEY_LENGTH} characters in production."
    if len(set(key)) < MIN_SECRET_KEY_DISTINCT_CHARACTERS or any(
        marker in key.lower() for marker in WEAK_KEY_MARKERS
    ):
        return (
            "SECRET_KEY looks weak or like a development key; generate one with "
            '`python -c "import secrets; print(secrets.token_urlsafe(50))"`.'
        )
    return None


def _encryption_key_problem(keys: str) -> str | None:
    """Each comma-separated key must be a Fernet key: urlsafe base64 of 32 random bytes."""
    parts = [part.strip() for part in keys.split(",")]
    if not keys.strip() or not all(parts):
        return "FIELD_ENCRYPTION_KEY must list one or more keys, the newest first."
    for part in parts:
        try:
            valid = len(urlsafe_b64decode(part.encode())) == 32
        except (binascii.Error, ValueError):
            valid = False
        if not valid:
            return (
                "FIELD_ENCRYPTION_KEY: each key must be 32 bytes in urlsafe base64; generate "
                'one with `python -c "from cryptography.fernet import Fernet; '
                'print(Fernet.generate_key().decode())"`.'
            )
    return None


def _public_url_problem(url: str) -> str | None:
    """Media URLs and the Mastodon app's website are built from it: it must be an address
    browsers reach, not a bind address such as the default `http://0.0.0.0:8000`. A loopback
    name is an address (the compose stack is reached at localhost), so it passes."""
    parts = urlsplit(url)
    host = (parts.hostname or "").strip("[]")
    unreal = not host
    with contextlib.suppress(ValueError):  # a name, not an address
        unreal = unreal or ipaddress.ip_address(host).is_unspecified
    if not env.str("PUBLIC_URL", default="") or parts.scheme not in ("http", "https") or unreal:
        return (
            "PUBLIC_URL must be the API's public address (e.g. https://api.example.com): "
            "absolute media URLs are built from it."
        )
    return None


def _problems() -> list[str]:
    """Each problem once: a variable that is missing is named for that alone."""
    # Set but empty counts as missing for the two servers (an empty REDIS_URL means none).
    missing = [
        name
        for name in REQUIRED
        if name not in os.environ
        or (name in ("DATABASE_URL", "REDIS_URL") and not os.environ[name].strip())
    ]
    found: list[str | None] = [
        f"Set the {name} environment variable (required in production"
        + (f": {WHY_REQUIRED[name]})." if name in WHY_REQUIRED else ").")
        for name in missing
    ]
    if "SECRET_KEY" not in missing:
        found.append(_secret_key_problem(SECRET_KEY))
    if "FIELD_ENCRYPTION_KEY" not in missing:
        found.append(_encryption_key_problem(FIELD_ENCRYPTION_KEY))
    if "DATABASE_URL" not in missing and DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        found.append(
            "DATABASE_URL must name a PostgreSQL database in production: a local SQLite file "
            "is not enough."
        )
    found.append(_public_url_problem(PUBLIC_URL))
    if "ALLOWED_HOSTS" not in missing and not ALLOWED_HOSTS:
        found.append("ALLOWED_HOSTS must name the hosts served.")
    if "*" in ALLOWED_HOSTS:
        found.append("ALLOWED_HOSTS must name the hosts served, not '*'.")
    if MAGIC_LINK_EXPOSE_URL:
        found.append("MAGIC_LINK_EXPOSE_URL must be off in production: it hands out logins.")
    if SIGNUP_CREDITS_ON not in ("signup", "verified"):
        found.append("SIGNUP_CREDITS_ON must be 'signup' or 'verified'.")
    if OUTBOUND_ALLOW_PRIVATE:
        found.append(
            "OUTBOUND_ALLOW_PRIVATE must be off in production: it lets user-given URLs reach "
            "private and loopback addresses."
        )
    if EMAIL_BACKEND.endswith("smtp.EmailBackend") and not env.str("EMAIL_HOST", default=""):
        found.append(
            "EMAIL_HOST is required for the SMTP e-mail backend (or set EMAIL_BACKEND "
            "explicitly, e.g. to the console backend, to keep mail out of the network)."
        )
    return [problem for problem in found if problem]


if problems := _problems():
    raise ImproperlyConfigured(
        "Production settings refused:\n" + "\n".join(f"- {p}" for p in problems)
    )
del problems

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
# The load balancer probes health over plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^api/health$", r"^api/v1/health$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SECURE_CONTENT_TYPE_NOSNIFF = True
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
