"""Tests of settings, Celery wiring, admin and the embedded database."""
