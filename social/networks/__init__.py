"""The networks: one registry drives the platforms list, connecting, publishing and outcomes.

Each network is a module of this package declaring a `NETWORK` (social.networks.base): adding
one is its module, its stand-in in the tests and its line here. A network whose app
credentials are not set (LinkedIn, Facebook and Instagram need ours) is listed but not
`configured`, and connecting to it answers 503 `provider_not_configured`.

The registry is the one list of networks: the API's provider fields accept its identifiers
(social.api.providers), OpenAPI's `SocialProviderEnum` is `choices()`, and the tables store the
identifier without a `choices` list of their own (social.models), so no network is listed
anywhere else.
"""

from social.networks import (
    bluesky,
    devto,
    discord,
    facebook,
    google_business,
    instagram,
    linkedin,
    linkedin_page,
    mastodon,
    pinterest,
    reddit,
    slack,
    telegram,
    threads,
    tiktok,
    x,
    youtube,
)
from social.networks.base import Network

NETWORKS: dict[str, Network] = {
    network.provider: network
    for network in (
        linkedin.NETWORK,
        facebook.NETWORK,
        instagram.NETWORK,
        bluesky.NETWORK,
        mastodon.NETWORK,
        devto.NETWORK,
        threads.NETWORK,
        x.NETWORK,
        linkedin_page.NETWORK,
        youtube.NETWORK,
        tiktok.NETWORK,
        pinterest.NETWORK,
        telegram.NETWORK,
        discord.NETWORK,
        google_business.NETWORK,
        slack.NETWORK,
        reddit.NETWORK,
    )
}


def choices() -> list[tuple[str, str]]:
    """(identifier, name) of each registered network, in the registry's order."""
    return [(provider, network.name) for provider, network in NETWORKS.items()]
