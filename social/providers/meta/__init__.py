"""Facebook Pages and Instagram: one Meta login, the Graph API, page tokens (`graph`), and
each network's adapter (`facebook`, `instagram`)."""

from social.providers.meta.facebook import FacebookAdapter
from social.providers.meta.graph import (
    AUTHENTICATION_CODES,
    FACEBOOK_SCOPES,
    INSTAGRAM_SCOPES,
    TRANSIENT_CODES,
    classify,
    classify_exchange,
)
from social.providers.meta.instagram import InstagramAdapter

__all__ = [
    "AUTHENTICATION_CODES",
    "FACEBOOK_SCOPES",
    "INSTAGRAM_SCOPES",
    "TRANSIENT_CODES",
    "FacebookAdapter",
    "InstagramAdapter",
    "classify",
    "classify_exchange",
]
