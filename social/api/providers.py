"""A network's identifier as the API takes it (`provider`, `platform`, `platforms`): one of
the registry's (social.networks.NETWORKS), nowhere listed by hand.

DRF makes a serializer's fields afresh for each serializer (a copy of the declared ones, made
with the arguments they were declared with), so these read the registry then: a network added
to the registry is accepted by every request after it, and drf-spectacular lists the
registry's identifiers in the schema (`SocialProviderEnum`, named in the settings from
`social.networks.choices`).
"""

from typing import Any

from rest_framework import serializers

from social.networks import NETWORKS, choices


class ProviderField(serializers.ChoiceField):
    """One network's identifier."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=choices(), **kwargs)


class ProviderListField(serializers.ListField):
    """A list of networks' identifiers, at most as many as there are networks."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=ProviderField(), max_length=len(NETWORKS), **kwargs)
