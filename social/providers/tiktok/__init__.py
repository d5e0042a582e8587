"""TikTok: its connection (Login Kit OAuth for the web, tokens refreshed, the creator as the
account), its posting flows (the creator's info asked first, a video's chunked upload kept
before any byte, photos fetched by TikTok, the status read until published) and the adapter
that publishes a video or photos with their options."""

from social.providers.tiktok.adapter import PRIVACY_LEVELS, TikTokAdapter
from social.providers.tiktok.connection import SCOPES, classify

__all__ = ["PRIVACY_LEVELS", "SCOPES", "TikTokAdapter", "classify"]
