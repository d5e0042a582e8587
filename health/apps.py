"""App configuration; records when the process started, for the health probe's uptime."""

import time

from django.apps import AppConfig

PROCESS_STARTED = time.monotonic()


class HealthConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "health"
