"""WSGI entry point for gunicorn."""

import os

from django.core.wsgi import get_wsgi_application

# Which settings to load is the one thing read before they are: from the environment.
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.production")

application = get_wsgi_application()
