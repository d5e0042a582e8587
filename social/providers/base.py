"""The one small interface every provider adapter implements, and what it returns.

Adapters speak to a provider's API through the outbound layer (config/outbound.py) and raise
its errors (TransientError, PermanentError, AuthenticationError), refined per provider by
their `classify` hook. They never touch the database: services load and store accounts.
"""

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the connected account is, and the credentials to act as it."""

    provider_user_id: str
    username: str
    display_name: str = ""
    email: str = ""
    avatar: str = ""
    access_token: str = ""
    refresh_token: str = ""
    expires_at: datetime | None = None
    limits: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ConnectRequest:
    """`POST /api/social/connect` as an adapter needs it."""

    code: str  # an OAuth code, an app password or an API key, by connect method
    identifier: str = ""  # Bluesky: handle or e-mail
    redirect_uri: str = ""
    instance: str = ""  # Mastodon


class Adapter(Protocol):
    """What the services call. Publish, lookup and metrics join with the posts issue."""

    def connect(self, request: ConnectRequest) -> Identity: ...

    def revoke(self, *, access_token: str, refresh_token: str) -> None: ...
