"""LinkedIn: its connection (OAuth, the REST API's headers), its media (the Images and Videos
APIs) and the adapter that publishes posts and first comments with them."""

from social.providers.linkedin.adapter import LinkedInAdapter, commentary
from social.providers.linkedin.connection import EXPIRED_TOKEN, SCOPES, classify

__all__ = ["EXPIRED_TOKEN", "SCOPES", "LinkedInAdapter", "classify", "commentary"]
