"""API-key scopes: what a key may do, and how each view declares what its methods need.

Every API view declares `api_key_scopes`, next to its permission classes: a mapping from an
HTTP method to the scope a key needs for it (or ANY_KEY: any live key of the user). A method
missing from the mapping is closed to keys, and so is a view that declares nothing
(KEYS_REFUSED says so explicitly; a test walks every route and fails on a view without a
declaration). The check itself runs where keys are read, in
`accounts.authentication.ApiKeyAuthentication`, so no view can forget it.
"""

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from django.db import models


class Scope(models.TextChoices):
    POSTS_READ = "posts:read", "Read posts, schedules, analytics, media and campaigns"
    POSTS_WRITE = "posts:write", "Create, publish and schedule posts; manage media and campaigns"
    ACCOUNTS_READ = "accounts:read", "Read the connected social accounts and the platforms"
    AI_WRITE = "ai:write", "Use the AI tools (spends credits) and read what they wrote"
    NOTIFICATIONS_READ = "notifications:read", "Read notifications and the unread count"
    NOTIFICATIONS_WRITE = "notifications:write", "Mark notifications read, delete them"
    WEBHOOKS_WRITE = "webhooks:write", "Manage webhook endpoints, read and redeliver deliveries"


# A declaration's value for a method any live key of the user may call, whatever its scopes
# (reading one's own profile: how an automation platform tests a connection).
ANY_KEY: Final = "any"

KeyScopes = Mapping[str, str]  # HTTP method -> a Scope value, or ANY_KEY
KEYS_REFUSED: Final[KeyScopes] = MappingProxyType({})  # no method opens to keys


def key_scope(view: object, method: str) -> str | None:
    """The scope a key needs for `method` on `view` (ANY_KEY: none); None: keys are refused.
    HEAD needs what GET needs."""
    declared: KeyScopes = getattr(view, "api_key_scopes", KEYS_REFUSED)
    method = method.upper()
    needed = declared.get(method)
    if needed is None and method == "HEAD":
        needed = declared.get("GET")
    return needed
