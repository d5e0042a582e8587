"""The networks: one registry drives the platforms list, connecting, publishing and outcomes.

Each network is a module of this package declaring a `NETWORK` (social.networks.base): adding
one is its module, its stand-in in the tests and its line here. A network whose app
credentials are not set (LinkedIn, Facebook and Instagram need ours) is listed but not
`configured`, and connecting to it answers 503 `provider_not_configured`.
"""

from social.networks import bluesky, devto, facebook, instagram, linkedin, mastodon
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
    )
}
