"""Instagram: a business account linked to a Facebook page, by OAuth with the Meta app."""

from social.networks import meta
from social.networks.base import Capabilities, Network, VideoRules, limits
from social.providers.meta import INSTAGRAM_SCOPES, InstagramAdapter

NETWORK = Network(
    provider="instagram",
    name="Instagram",
    connect_method="oauth",
    settings=meta.SETTINGS,
    capabilities=Capabilities(
        text=True,
        links=True,  # carried in the caption, as text
        images=True,
        alt_text=True,
        video=VideoRules(  # Reels, and videos among a carousel's items, fetched by their URL
            min_seconds=3,
            max_seconds=900,
            max_bytes=300 * 1024 * 1024,
            carousel=True,
            by_url=True,
            source="https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media#reels-specifications",
        ),
        documents=False,
        carousel=True,  # 2 to 10 images and videos
        threads=False,
        first_comment=True,
        title=False,
    ),
    limits=limits(2200, max_media=10, media_required=True, max_hashtags=30),
    options=(),
    errors=meta.ERRORS,
    exactly_once="lookup",
    adapter=InstagramAdapter(),
    scopes=tuple(INSTAGRAM_SCOPES.split(",")),
    best_times=(
        ("tue", "11:00"),
        ("wed", "11:00"),
        ("thu", "11:00"),
        ("fri", "10:00"),
        ("mon", "11:00"),
    ),
    error_source=meta.SOURCE,
)
