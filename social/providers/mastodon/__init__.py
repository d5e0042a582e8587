"""Mastodon: its connection (an app per instance, OAuth), its media (uploads processed by the
instance) and the adapter that publishes statuses with them."""

from social.providers.mastodon.adapter import MastodonAdapter
from social.providers.mastodon.connection import SCOPES, classify, normalize_instance

__all__ = ["SCOPES", "MastodonAdapter", "classify", "normalize_instance"]
