"""Freelancer Growth Platform API: the composition root (settings, URLs, ASGI/WSGI, Celery)."""

from config.celery_app import app as celery_app
from core import __version__

__all__ = ["__version__", "celery_app"]
