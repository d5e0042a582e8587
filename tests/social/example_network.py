"""A throwaway seventh network, registered by a fixture only: what adding a network takes is
its module (this one: its declaration and its adapter), its stand-in
(tests/social/example_standin.py) and its registry line (social.md section 13).

Its API, as its stand-in plays it: an API key in `Authorization: Bearer`; `GET /v1/me`;
`POST /v1/posts` `{text, media, options}`; `GET /v1/posts` newest first, `before` a post's id
for the next page; `GET /v1/posts/{id}` with its counters. Its base URL is the setting
`EXAMPLE_API_URL`, which the fixture sets."""

from typing import Any

from django.conf import settings

from social.networks.base import Capabilities, Network, Option, Rule, limits
from social.providers.base import (
    Attempt,
    ConnectRequest,
    Content,
    Credentials,
    Identity,
    Metrics,
    OAuthApp,
    Published,
)
from social.providers.client import ProviderClient, moment
from social.providers.lookup import LOOKUP_PAGE_SIZE, Page, lookup_pages, same_text
from social.providers.text import Composer

SOURCE = "example"
API_URL = "EXAMPLE_API_URL"  # the setting of its base URL


class ExampleAdapter(Composer):
    """An API key; posts of text and images, found again among the account's posts."""

    provider = "example"
    name = "Example"
    comment_limit = 200
    _client = ProviderClient("example")

    @staticmethod
    def configured() -> bool:
        return True  # each user brings an API key

    def _call(self, method: str, path: str, credentials: Credentials, **kwargs: Any) -> Any:
        return self._client.json(
            method,
            f"{getattr(settings, API_URL)}{path}",
            headers={"Authorization": f"Bearer {credentials.access_token}"},
            **kwargs,
        )

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        raise NotImplementedError("Example connects with an API key")

    def connect(self, request: ConnectRequest) -> Identity:
        return self.identity(Credentials(provider_user_id="", access_token=request.code))

    def identity(self, credentials: Credentials) -> Identity:
        me: dict[str, Any] = self._call("GET", "/v1/me", credentials)
        return Identity(
            provider_user_id=str(me["id"]),
            username=str(me.get("handle") or ""),
            display_name=str(me.get("name") or ""),
            access_token=credentials.access_token,
        )

    def refresh(self, credentials: Credentials) -> None:
        """API keys do not expire."""

    def revoke(self, credentials: Credentials) -> None:
        """The user deletes the key in their settings."""

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        body = {
            "text": content.text,
            "media": [media.url for media in content.media],
            "options": content.options,
        }
        created: dict[str, Any] = self._call("POST", "/v1/posts", credentials, json=body)
        return Published(provider_post_id=str(created["id"]), url=str(created["url"]))

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        def page(before: str | None) -> Page:
            params = {"limit": LOOKUP_PAGE_SIZE, **({"before": before} if before else {})}
            posts: list[dict[str, Any]] = self._call("GET", "/v1/posts", credentials, params=params)
            return posts, str(posts[-1]["id"]) if len(posts) >= LOOKUP_PAGE_SIZE else None

        post = lookup_pages(
            "Example",
            page,
            attempt=attempt,
            created=lambda post: moment(post.get("createdAt")),
            matches=lambda post: (
                attempt.ours(str(post.get("id")))
                and same_text(str(post.get("text") or ""), content.text)
            ),
        )
        if post is None:
            return None
        return Published(provider_post_id=str(post["id"]), url=str(post["url"]))

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        post: dict[str, Any] = self._call(
            "GET", f"/v1/posts/{published.provider_post_id}", credentials
        )
        return Metrics(
            impressions=int(post.get("views") or 0), engagement=int(post.get("likes") or 0)
        )


ERRORS = (
    Rule(SOURCE, "auth_expired", "token_gone: the key was revoked.", code="token_gone"),
    Rule(SOURCE, "content_rejected", "Any other refusal (HTTP 4xx).", status=(400, 428)),
)

NETWORK = Network(
    provider="example",
    name="Example",
    connect_method="api_key",
    settings=(API_URL,),
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
    adapter=ExampleAdapter(),
    scopes=(),
    best_times=(
        ("mon", "09:00"),
        ("tue", "09:00"),
        ("wed", "09:00"),
        ("thu", "09:00"),
        ("fri", "09:00"),
    ),
)
