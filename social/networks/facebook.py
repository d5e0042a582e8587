"""Facebook Pages: a page the user manages, by OAuth with the Meta app."""

from social.networks import meta
from social.networks.base import Capabilities, Network, VideoRules, limits
from social.providers.meta import FACEBOOK_SCOPES, FacebookAdapter

NETWORK = Network(
    provider="facebook",
    name="Facebook Pages",
    connect_method="oauth",
    settings=meta.SETTINGS,
    capabilities=Capabilities(
        text=True,
        links=True,
        images=True,
        alt_text=True,
        video=VideoRules(  # Facebook fetches the file by its URL and publishes it once processed
            max_seconds=4 * 3600,
            max_bytes=4 * 1024**3,
            by_url=True,
            source="https://developers.facebook.com/docs/video-api/guides/publishing",
        ),
        documents=False,
        carousel=False,
        threads=False,
        first_comment=True,
        title=False,
    ),
    limits=limits(63206, max_media=10),
    options=(),
    errors=meta.ERRORS,
    exactly_once="lookup",
    adapter=FacebookAdapter(),
    scopes=tuple(FACEBOOK_SCOPES.split(",")),
    best_times=(
        ("wed", "09:00"),
        ("tue", "10:00"),
        ("thu", "09:00"),
        ("mon", "10:00"),
        ("fri", "09:00"),
    ),
    error_source=meta.SOURCE,
)
