"""Bluesky (AT Protocol): its connection (app-password sessions), its media (blobs and the
video service), its records (chosen keys, facets) and the adapter that publishes with them."""

from social.providers.bluesky.adapter import BlueskyAdapter
from social.providers.bluesky.connection import AUTH_ERRORS, classify
from social.providers.bluesky.records import TID_ALPHABET, facets, tid

__all__ = ["AUTH_ERRORS", "TID_ALPHABET", "BlueskyAdapter", "classify", "facets", "tid"]
