"""App configuration; traces and error reports are set up here when configured, before Django
loads its middleware (core/telemetry.py)."""

from django.apps import AppConfig


class CoreConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "core"
    verbose_name = "Core"

    def ready(self) -> None:
        from core import metrics, telemetry

        metrics.process_default()  # before anything imports prometheus_client
        telemetry.setup()
