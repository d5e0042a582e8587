"""X: its connection (OAuth 2.0 with PKCE, rotating refresh tokens), its media (images with
alt text, chunked video uploads processed by X) and the adapter that publishes posts, threads
and first comments with them."""

from social.providers.x.adapter import XAdapter, expanded_text
from social.providers.x.connection import SCOPES, classify, code_challenge, code_verifier

__all__ = ["SCOPES", "XAdapter", "classify", "code_challenge", "code_verifier", "expanded_text"]
