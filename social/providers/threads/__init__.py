"""Threads: its connection (Meta's Threads app, 60-day tokens that renew themselves, the
publishing quota), its rules (length with emoji as bytes, links, images) and the adapter that
publishes posts, carousels, videos and replies as containers, each exactly once."""

from social.providers.threads.adapter import ThreadsAdapter
from social.providers.threads.connection import (
    AUTHENTICATION_CODES,
    SCOPES,
    TRANSIENT_CODES,
    classify,
    classify_exchange,
)

__all__ = [
    "AUTHENTICATION_CODES",
    "SCOPES",
    "TRANSIENT_CODES",
    "ThreadsAdapter",
    "classify",
    "classify_exchange",
]
