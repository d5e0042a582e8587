"""App configuration."""

from django.apps import AppConfig


class AitoolsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "aitools"
