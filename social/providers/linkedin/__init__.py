"""LinkedIn: its connection (OAuth, the REST API's headers), its media (the Images, Videos and
Documents APIs), the adapter that publishes a member's posts and first comments with them, and
the adapter of the pages a member administers (`page`)."""

from social.providers.linkedin.adapter import LinkedInAdapter, commentary
from social.providers.linkedin.connection import EXPIRED_TOKEN, SCOPES, classify
from social.providers.linkedin.page import NO_PAGE, PAGE_SCOPES, LinkedInPageAdapter

__all__ = [
    "EXPIRED_TOKEN",
    "NO_PAGE",
    "PAGE_SCOPES",
    "SCOPES",
    "LinkedInAdapter",
    "LinkedInPageAdapter",
    "classify",
    "commentary",
]
