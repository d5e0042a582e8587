"""Production settings: secrets required, DEBUG off, secure cookies and HSTS."""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import *  # noqa: F403
from config.settings.base import REDIS_URL, env

ENVIRONMENT = env.str("DJANGO_ENV", default="production")
DEBUG = False
# No default: a missing key must stop the process, never fall back to a known value.
SECRET_KEY = env.str("SECRET_KEY")
if len(SECRET_KEY) < 32:
    raise ImproperlyConfigured("SECRET_KEY must be at least 32 characters in production.")
if not REDIS_URL:
    # Several gunicorn workers must share one rate-limit count and one cache.
    raise ImproperlyConfigured("REDIS_URL is required in production.")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")
# Its own secret: rotating SECRET_KEY must not make stored provider tokens unreadable.
FIELD_ENCRYPTION_KEY = env.str("FIELD_ENCRYPTION_KEY")
MAGIC_LINK_EXPOSE_URL = env.bool("MAGIC_LINK_EXPOSE_URL", default=False)

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
