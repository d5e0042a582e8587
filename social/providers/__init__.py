"""The platforms: one table drives the platforms list, connecting and the adapters.

A platform whose app credentials are not set (LinkedIn, Facebook and Instagram need ours) is
listed but not `configured`, and connecting to it answers 503 `provider_not_configured`.
"""

from dataclasses import dataclass
from typing import Any

from social.models import Provider
from social.providers.base import Adapter
from social.providers.bluesky import BlueskyAdapter
from social.providers.devto import DevtoAdapter
from social.providers.linkedin import LinkedInAdapter
from social.providers.mastodon import MastodonAdapter
from social.providers.meta import FacebookAdapter, InstagramAdapter


@dataclass(frozen=True, slots=True)
class Platform:
    provider: str
    name: str
    connect_method: str  # oauth, app_password, api_key
    limits: dict[str, Any]
    adapter: Adapter
    # The connection renews itself for as long as it is used (a Bluesky session: the daily
    # upkeep refreshes it before its refresh token's 90 days run out), so it has no end.
    renews_itself: bool = False

    @property
    def configured(self) -> bool:
        return self.adapter.configured()


def _limits(
    max_characters: int,
    *,
    counts_by: str = "characters",
    max_media: int = 4,
    media_required: bool = False,
    max_hashtags: int | None = None,
    title_required: bool = False,
    max_title: int | None = None,
) -> dict[str, Any]:
    return {
        "maxCharacters": max_characters,
        "countsBy": counts_by,
        "maxMedia": max_media,
        "mediaRequired": media_required,
        "maxHashtags": max_hashtags,
        "titleRequired": title_required,
        "maxTitle": max_title,
    }


PLATFORMS: dict[str, Platform] = {
    Provider.LINKEDIN: Platform(
        Provider.LINKEDIN, "LinkedIn", "oauth", _limits(3000, max_media=20), LinkedInAdapter()
    ),
    Provider.FACEBOOK: Platform(
        Provider.FACEBOOK,
        "Facebook Pages",
        "oauth",
        _limits(63206, max_media=10),
        FacebookAdapter(),
    ),
    Provider.INSTAGRAM: Platform(
        Provider.INSTAGRAM,
        "Instagram",
        "oauth",
        _limits(2200, max_media=10, media_required=True, max_hashtags=30),
        InstagramAdapter(),
    ),
    Provider.BLUESKY: Platform(
        Provider.BLUESKY,
        "Bluesky",
        "app_password",
        _limits(300, counts_by="graphemes"),
        BlueskyAdapter(),
        renews_itself=True,
    ),
    Provider.MASTODON: Platform(
        Provider.MASTODON, "Mastodon", "oauth", _limits(500), MastodonAdapter()
    ),
    Provider.DEVTO: Platform(
        Provider.DEVTO,
        "DEV Community",
        "api_key",
        _limits(100_000, max_media=1, max_hashtags=4, title_required=True, max_title=128),
        DevtoAdapter(),
    ),
}
