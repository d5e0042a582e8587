"""YouTube: its connection (Google OAuth with offline access, hourly tokens refreshed, the
channel as the account), its resumable uploads (the session kept before any byte, resumed after
an interruption) and the adapter that publishes a video with its title and options, awaiting
YouTube's processing."""

from social.providers.youtube.adapter import YouTubeAdapter
from social.providers.youtube.connection import SCOPES, classify, next_midnight_pacific

__all__ = ["SCOPES", "YouTubeAdapter", "classify", "next_midnight_pacific"]
