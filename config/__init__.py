"""Freelancer Growth Platform API: Django project package."""

__version__ = "0.2.0"  # the same as pyproject.toml (tests check)

from config.celery_app import app as celery_app

__all__ = ["__version__", "celery_app"]
