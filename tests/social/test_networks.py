"""The network kit (social.md sections 1, 12, 13): every registered network declares all a
network is, `GET /api/social/platforms` serves its capabilities from that one table, and a
seventh network needs nothing beyond its module, its stand-in and its registry line."""

import importlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings

from core import outbound
from social import error_objects, outcomes
from social.content.services.composition import Target, problems, target_problems
from social.content.services.composition import compose as composed
from social.models import (
    PROVIDER_LENGTH,
    AnalyticsRecord,
    ConnectState,
    ScheduledRecord,
    SocialAccount,
    SocialSettings,
)
from social.networks import NETWORKS
from social.networks.base import CONNECT_METHODS, COUNTS_BY, EXACTLY_ONCE, Network
from social.providers.base import Draft
from tests.social import example_network
from tests.social.example_standin import EXAMPLE_KEY, ExampleStandIn
from tests.social.standins import serve

pytestmark = pytest.mark.django_db(transaction=False)

CAPABILITY_KEYS = [
    "text", "links", "images", "maxImages", "altText", "video", "documents", "carousel",
    "threads", "firstComment", "title", "options",
]  # fmt: skip
LIMIT_KEYS = {"maxCharacters", "countsBy", "maxMedia", "mediaRequired", "maxHashtags",
              "titleRequired", "maxTitle"}  # fmt: skip
# Each network's stand-in in tests/social/standins.py (an entry per network, or the test of
# its flows has nothing to run against).
STANDINS = {
    "linkedin": "LinkedInStandIn",
    "facebook": "MetaStandIn",
    "instagram": "MetaStandIn",
    "bluesky": "BlueskyStandIn",
    "mastodon": "MastodonStandIn",
    "devto": "DevtoStandIn",
    "threads": "ThreadsStandIn",
    "x": "XStandIn",  # in a module of its own, tests/social/x_standin.py
    "linkedin_page": "LinkedInStandIn",
    "youtube": "YouTubeStandIn",
    "tiktok": "TikTokStandIn",
    "pinterest": "PinterestStandIn",  # tests/social/pinterest_standin.py
    "telegram": "TelegramStandIn",
    "discord": "DiscordStandIn",
    "google_business": "GoogleBusinessStandIn",  # its tokens from Google's OAuth (YouTube's)
    "slack": "SlackStandIn",
    "reddit": "RedditStandIn",
}


@pytest.fixture
def example_api(settings) -> Iterator[ExampleStandIn]:
    """The seventh network's stand-in, its base URL setting pointed at it."""
    standin = ExampleStandIn()
    with serve(standin):
        settings.EXAMPLE_API_URL = standin.url
        yield standin


@pytest.fixture
def seventh(example_api: ExampleStandIn) -> Iterator[Network]:
    """The throwaway network registered, as its one registry line would."""
    NETWORKS[example_network.NETWORK.provider] = example_network.NETWORK
    yield example_network.NETWORK
    del NETWORKS[example_network.NETWORK.provider]


def connect_body() -> set[str]:
    """The fields `POST /api/social/connect` takes."""
    from social.api.accounts import ConnectView

    return set(ConnectView.InputSerializer().fields)


def incomplete(network: Network) -> list[str]:
    """What the network fails to declare."""
    missing = []
    if not network.provider or network.provider != network.adapter.provider:
        missing.append("provider (its adapter's)")
    if len(network.provider) > PROVIDER_LENGTH:
        missing.append("provider (as long as the tables' column at most)")
    if not network.name or network.name != network.adapter.name:
        missing.append("name (its adapter's, in messages)")
    if network.connect_method not in CONNECT_METHODS:
        missing.append("connect_method")
    if any(name not in connect_body() or not said for name, said in network.connect_fields):
        missing.append("connect_fields (fields of the connect body, each with its message)")
    if not network.settings or any(not hasattr(settings, name) for name in network.settings):
        missing.append("settings (each a Django setting)")
    if set(network.limits) != LIMIT_KEYS or network.limits["countsBy"] not in COUNTS_BY:
        missing.append("limits")
    if list(network.capabilities_json()) != CAPABILITY_KEYS:
        missing.append("capabilities")
    video = network.capabilities.video
    if video is not None and not (
        video.source.startswith("https://")
        and 0 <= video.min_seconds < video.max_seconds
        and video.max_bytes > 0
    ):
        missing.append("capabilities.video (its rules, each with its source)")
    if not network.errors or any(rule.source != network.source for rule in network.errors):
        missing.append("errors (its own rows)")
    if {rule.category for rule in network.errors} - set(outcomes.CATEGORIES):
        missing.append("errors (categories of section 12)")
    if network.exactly_once not in EXACTLY_ONCE:
        missing.append("exactly_once")
    if len({option.name for option in network.options}) != len(network.options):
        missing.append("options (one per key)")
    if network.connect_method == "oauth" and not network.scopes:
        missing.append("scopes (what its consent asks for)")
    days = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    if len(network.best_times) != 5 or any(
        day not in days or not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", at)
        for day, at in network.best_times
    ):
        missing.append("best_times (five (day, HH:MM))")
    return missing


@pytest.mark.parametrize("provider", list(NETWORKS))
def test_every_network_declares_all_a_network_is(provider):
    assert incomplete(NETWORKS[provider]) == []
    assert provider in STANDINS, f"{provider} has no stand-in"
    from tests.social import standins

    own = f"tests.social.{provider}_standin"
    module = standins if hasattr(standins, STANDINS[provider]) else importlib.import_module(own)
    assert hasattr(module, STANDINS[provider])


def test_the_registry_is_the_one_list_of_networks(seventh):
    """What the API's provider fields accept and the schema's enum lists is the registry,
    a network registered late included; the tables keep no list of their own (adding a network
    writes no migration), and every identifier fits their column."""
    from social.api.accounts import ConnectView
    from social.api.post_input import PostFields

    registered = list(NETWORKS)
    assert registered[-1] == "example"
    provider: Any = ConnectView.InputSerializer().fields["provider"]
    assert list(provider.choices) == registered
    platforms: Any = PostFields().fields["platforms"]
    assert (list(platforms.child.choices), platforms.max_length) == (registered, len(registered))
    assert [value for value, _ in spectacular_enum("SocialProviderEnum")] == registered
    columns = [
        (SocialAccount, "provider"),
        (ScheduledRecord, "provider"),
        (AnalyticsRecord, "provider"),
        (ConnectState, "provider"),
        (SocialSettings, "default_platform"),
    ]
    for model, name in columns:
        column: Any = model._meta.get_field(name)
        assert column.choices is None, f"{model.__name__}.{name} lists networks"
        assert all(len(provider) <= column.max_length for provider in registered)


def spectacular_enum(name: str) -> list[tuple[str, str]]:
    """An enum named in the OpenAPI settings, as drf-spectacular loads it."""
    from django.utils.module_loading import import_string

    overrides: Any = settings.SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]
    found: list[tuple[str, str]] = import_string(overrides[name])()
    return found


def test_a_network_missing_a_declaration_is_caught():
    from dataclasses import replace

    network = replace(NETWORKS["devto"], exactly_once="", settings=("NO_SUCH_SETTING",))
    assert incomplete(network) == ["settings (each a Django setting)", "exactly_once"]
    network = replace(NETWORKS["bluesky"], connect_fields=(("handle", "Your handle."),))
    assert incomplete(network) == [
        "connect_fields (fields of the connect body, each with its message)"
    ]
    network = replace(NETWORKS["devto"], provider="devto_community_pages", error_source="devto")
    assert incomplete(network) == [
        "provider (its adapter's)",
        "provider (as long as the tables' column at most)",
    ]
    network = replace(NETWORKS["linkedin"], scopes=(), best_times=(("someday", "09:00"),))
    assert incomplete(network) == [
        "scopes (what its consent asks for)",
        "best_times (five (day, HH:MM))",
    ]
    bluesky = NETWORKS["bluesky"]
    assert bluesky.capabilities.video is not None
    unsourced = replace(bluesky.capabilities.video, source="")
    network = replace(bluesky, capabilities=replace(bluesky.capabilities, video=unsourced))
    assert incomplete(network) == ["capabilities.video (its rules, each with its source)"]


def test_platforms_serve_each_networks_capabilities(ada_client):
    data = ada_client.get("/api/social/platforms").json()["data"]
    capabilities = {p["provider"]: p["capabilities"] for p in data}
    assert capabilities["bluesky"] == {
        "text": True, "links": True, "images": True, "maxImages": 4, "altText": True,
        "video": True, "documents": False, "carousel": False, "threads": True,
        "firstComment": True, "title": False, "options": [],
    }  # fmt: skip
    assert capabilities["instagram"]["carousel"] is True
    assert capabilities["instagram"]["maxImages"] == 10
    assert capabilities["devto"]["firstComment"] is False
    assert capabilities["devto"]["video"] is False
    assert capabilities["devto"]["title"] is True
    # The same table the rest enforces: no threads where the capabilities say none.
    assert [p for p, can in capabilities.items() if can["threads"]] == [
        "bluesky",
        "mastodon",
        "threads",
        "x",
        "telegram",
        "slack",
    ]


def test_a_seventh_network_needs_only_its_module_and_registry_line(ada_client, seventh):
    assert incomplete(seventh) == []
    data = ada_client.get("/api/social/platforms").json()["data"]
    example = next(p for p in data if p["provider"] == "example")
    assert example["name"] == "Example"
    assert example["connectMethod"] == "api_key"
    assert example["configured"] is True
    assert example["limits"]["maxCharacters"] == 40
    assert example["capabilities"]["maxImages"] == 2
    assert example["capabilities"]["options"] == [
        {"name": "audience", "type": "str", "choices": ["public", "friends"]},
        {"name": "pinned", "type": "bool"},
    ]
    # Its limits are enforced, and its messages name it.
    draft = Draft(content="x" * 41)
    assert composed(draft, "example").text == "x" * 41
    assert problems(draft, Target(provider="example")) == [
        ("content", "Example posts are at most 40 characters; this one is 41.")
    ]
    # Its error answers map through its own table, its remedies name it.
    refused = outbound.AuthenticationError(
        "refused", status=401, excerpt='{"error": "token_gone", "message": "gone"}'
    )
    assert outcomes.attempt_error("example", refused)["category"] == "auth_expired"
    assert "Example" in error_objects.remedy_for("auth_expired", "example")


@pytest.mark.usefixtures("cron_secret")
def test_a_seventh_network_connects_and_publishes_over_http(
    client, ada_client, seventh, example_api, settings
):
    """Through the API alone, from its module, its stand-in and its registry line: connected
    (a refused key storing nothing), published now with its own option, its limits enforced,
    a lost answer found by its lookup (published once), its metrics collected."""
    from social.tasks import metrics_collect_task
    from tests.social.test_scheduler import make_due, run, schedule

    body = {"provider": "example", "code": "wrong-key"}
    refused = ada_client.post("/api/social/connect", body, format="json")
    assert refused.status_code == 400, refused.content
    assert refused.json()["error"]["code"] == "provider_auth_failed"
    assert not SocialAccount.objects.exists()
    body = {"provider": "example", "code": EXAMPLE_KEY}
    connected = ada_client.post("/api/social/connect", body, format="json")
    assert connected.status_code == 200, connected.content
    account = connected.json()["data"]
    assert (account["provider"], account["username"], account["status"]) == (
        "example",
        "ada",
        "connected",
    )
    assert account["limits"]["maxCharacters"] == 40
    listed = ada_client.get("/api/social/accounts").json()["data"]
    assert [a["provider"] for a in listed] == ["example"]

    published = ada_client.post(
        "/api/social/publish",
        {"content": "Hello from the seventh", "accountIds": [account["id"]],
         "variants": {"example": {"options": {"audience": "friends"}}}},
        format="json",
    )  # fmt: skip
    assert published.status_code == 200, published.content
    (result,) = published.json()["data"]
    assert (result["provider"], result["success"]) == ("example", True), result
    (post,) = example_api.posts
    assert (post["text"], post["options"]) == ("Hello from the seventh", {"audience": "friends"})
    assert result["url"] == post["url"]

    too_long = ada_client.post(
        "/api/social/publish",
        {"content": "x" * 41, "accountIds": [account["id"]]},
        format="json",
    )
    assert too_long.status_code == 400, too_long.content
    assert "content" in str(too_long.json()["error"]["details"])
    assert len(example_api.posts) == 1

    settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 0.5
    (record_id,) = schedule(ada_client, {"example": account}, "example", content="Once only")
    example_api.fail, example_api.hang = "timeout", 0.8
    assert run(client).json()["data"]["results"][0]["status"] == "Scheduled"
    assert ScheduledRecord.objects.get(pk=record_id).outcome_unknown is True
    assert example_api.wait_idle()
    example_api.fail = ""
    make_due([record_id])
    second = run(client).json()["data"]["results"][0]
    assert (second["success"], second["status"]) == (True, "Published")
    assert [post["text"] for post in example_api.posts] == ["Hello from the seventh", "Once only"]

    assert metrics_collect_task.delay().get() == {"records": 2, "collected": 2}
    rows = ada_client.get("/api/social/analytics").json()["data"]
    assert {(row["provider"], row["impressions"]) for row in rows} == {("example", 12)}


def test_an_option_no_network_declares_is_400_naming_it_and_nothing_is_saved(ada_client):
    response = ada_client.post(
        "/api/social/posts",
        {"content": "Hi", "variants": {"bluesky": {"options": {"visibility": "public"}}}},
        format="json",
    )
    assert response.status_code == 400, response.content
    assert list(response.json()["error"]["details"]) == ["variants.bluesky.options.visibility"]
    assert ada_client.get("/api/social/posts").json()["data"] == []
    # The preview reports them as its target's problems, at the same field.
    response = ada_client.post(
        "/api/social/preview",
        {"content": "Hi", "title": "Hi", "platforms": ["devto"],
         "variants": {"devto": {"options": {"series": "Launch"}}}},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    (devto,) = response.json()["data"]
    assert devto["valid"] is False
    assert [p["field"] for p in devto["problems"]] == ["variants.devto.options.series"]
    assert "DEV Community has no option 'series'" in devto["problems"][0]["message"]
    assert ada_client.get("/api/social/posts").json()["data"] == []


def test_no_options_at_all_is_a_variant_like_any_other(ada_client):
    response = ada_client.post(
        "/api/social/posts",
        {"content": "Hi", "variants": {"bluesky": {"content": "Hey", "options": {}}}},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["data"]["variants"] == {"bluesky": {"content": "Hey", "options": {}}}


def test_a_networks_options_are_checked_against_its_schema(ada, seventh):
    from core.errors import ValidationFailed
    from social.content import PostInput, VariantInput
    from social.content.services.posts import draft_of, post_fill
    from social.models import Post

    def with_options(options: dict) -> PostInput:
        return PostInput(variants={"example": VariantInput(options=options)})

    post = Post(user=ada, workspace=ada.personal_workspace)
    for options, field in [
        ({"audience": "enemies"}, "variants.example.options.audience"),
        ({"pinned": "yes"}, "variants.example.options.pinned"),
        ({"boardId": "1"}, "variants.example.options.boardId"),
    ]:
        with pytest.raises(ValidationFailed) as refused:
            post_fill(post=post, fields=with_options(options))
        assert list(refused.value.details) == [field]
    chosen = {"audience": "friends", "pinned": True}
    post_fill(post=post, fields=with_options(chosen))
    assert draft_of(post, "example").options == chosen
    # The preview's problems of a target, at the same field.
    wrong = Draft(content="Hi", options={"audience": "enemies"}, provider="example")
    assert target_problems(wrong, Target(provider="example"), require_alt=False) == [
        ("variants.example.options.audience", "Must be one of: public, friends.")
    ]


@pytest.mark.parametrize("provider", list(NETWORKS))
def test_what_an_adapter_is_given_to_publish_carries_the_options(provider):
    draft = Draft(content="Hi", title="Hi", options={"key": "value"}, provider=provider)
    assert composed(draft, provider).options == {"key": "value"}
