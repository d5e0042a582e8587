"""A throwaway seventh network, registered by a fixture only: what adding a network takes is
its module (this one), its stand-in and its registry line (social.md section 13)."""

from social.networks.base import Capabilities, Network, Option, Rule, limits
from social.providers.text import Composer

SOURCE = "example"


class ExampleAdapter(Composer):
    """Composes and measures like most networks; nothing of it is sent anywhere."""

    provider = "example"
    name = "Example"
    comment_limit = 200

    @staticmethod
    def configured() -> bool:
        return True


ERRORS = (
    Rule(SOURCE, "auth_expired", "token_gone: the key was revoked.", code="token_gone"),
    Rule(SOURCE, "content_rejected", "Any other refusal (HTTP 4xx).", status=(400, 428)),
)

NETWORK = Network(
    provider="example",
    name="Example",
    connect_method="api_key",
    settings=("PUBLIC_URL",),
    capabilities=Capabilities(
        text=True,
        links=True,
        images=True,
        alt_text=False,
        video=None,
        documents=False,
        carousel=False,
        threads=False,
        first_comment=False,
        title=False,
    ),
    limits=limits(40, max_media=2),
    options=(
        Option("audience", str, "Who sees the post.", choices=("public", "friends")),
        Option("pinned", bool, "Pin the post to the profile."),
    ),
    errors=ERRORS,
    exactly_once="lookup",
    adapter=ExampleAdapter(),  # type: ignore[arg-type]
    scopes=(),
    best_times=(
        ("mon", "09:00"),
        ("tue", "09:00"),
        ("wed", "09:00"),
        ("thu", "09:00"),
        ("fri", "09:00"),
    ),
)
