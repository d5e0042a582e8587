"""The adapters: each speaks one platform's API; `social.networks` declares the rest.

`PLATFORMS` is the networks' registry (social.networks.NETWORKS) under the name the API
layer's accounts module still imports; it is looked up when asked for, because the
network modules import the adapters of this package.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from social.networks.base import Network


def __getattr__(name: str) -> "dict[str, Network]":
    if name == "PLATFORMS":
        from social.networks import NETWORKS

        return NETWORKS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
