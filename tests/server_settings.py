"""Settings for real server processes started by tests: development defaults plus probe URLs."""

from config.settings.local import *  # noqa: F403
from config.settings.local import env

ROOT_URLCONF = "tests.api.urls"
DEBUG = env.bool("DJANGO_DEBUG", default=False)
