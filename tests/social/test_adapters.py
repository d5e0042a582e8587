"""The provider adapters below the API: error classification of every provider, and publish,
lookup, metrics, refresh and expiry against the stand-ins (what posts and the scheduler use)."""

import json
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from core import outbound
from notifications.models import Notification
from social.connections.services.credentials import credentials_keep, credentials_of
from social.models import SocialAccount
from social.networks import NETWORKS
from social.providers import bluesky, linkedin, mastodon, meta
from social.providers.base import Attempt, Content, MediaFile, Published
from tests.social.conftest import connect

pytestmark = pytest.mark.django_db


def answer(status: int, body: Any = None, headers: dict[str, str] | None = None) -> Any:
    content = json.dumps(body).encode() if body is not None else b""
    return outbound.Response(status, content, headers)


def classified(classify: Any, response: Any) -> type[outbound.OutboundError] | None:
    error = (classify(response) if classify else None) or outbound.classify(response)
    return type(error) if error is not None else None


T, P, A = outbound.TransientError, outbound.PermanentError, outbound.AuthenticationError


def graph(code: int, status: int = 400) -> Any:
    return answer(status, {"error": {"message": "m", "type": "OAuthException", "code": code}})


@pytest.mark.parametrize(
    ("classify", "response", "expected"),
    [
        # LinkedIn: 401 / 65602 authentication; 429, 5xx transient; 400, 403, 422 permanent.
        (linkedin.classify, answer(401, {"serviceErrorCode": 65602, "status": 401}), A),
        (linkedin.classify, answer(429, {"status": 429}, {"Retry-After": "60"}), T),
        (linkedin.classify, answer(500, {"status": 500}), T),
        (linkedin.classify, answer(503, None), T),
        (linkedin.classify, answer(400, {"status": 400, "message": "bad"}), P),
        (linkedin.classify, answer(403, {"status": 403, "message": "not allowed"}), P),
        (linkedin.classify, answer(422, {"code": "DUPLICATE_POST", "status": 422}), P),
        (linkedin.classify, answer(201, None), None),
        # Graph: named by error.code, whatever the HTTP status.
        (meta.classify, graph(190), A),
        (meta.classify, graph(102), A),
        (meta.classify, graph(190, status=401), A),
        *[(meta.classify, graph(code), T) for code in (1, 2, 4, 17, 32, 613)],
        *[(meta.classify, graph(code), P) for code in (10, 100, 200, 299, 506)],
        (meta.classify, answer(500, {"error": {"message": "x", "code": 2}}), T),
        (meta.classify, answer(502, None), T),
        (meta.classify_exchange, graph(1), P),
        (meta.classify_exchange, graph(100), P),
        (meta.classify_exchange, answer(503, None), T),
        # Bluesky: the body's `error` names expired sessions on HTTP 400.
        (bluesky.classify, answer(400, {"error": "ExpiredToken"}), A),
        (bluesky.classify, answer(400, {"error": "InvalidToken"}), A),
        (bluesky.classify, answer(401, {"error": "AuthenticationRequired"}), A),
        (bluesky.classify, answer(400, {"error": "InvalidRequest"}), P),
        (bluesky.classify, answer(429, {"error": "RateLimitExceeded"}), T),
        (bluesky.classify, answer(502, None), T),
        # Mastodon: 401 authentication, 422 permanent, 429 and 5xx transient.
        (mastodon.classify, answer(401, {"error": "The access token is invalid"}), A),
        (mastodon.classify, answer(422, {"error": "Validation failed"}), P),
        (mastodon.classify, answer(404, {"error": "Record not found"}), P),
        (mastodon.classify, answer(429, {"error": "Too many requests"}), T),
        (mastodon.classify, answer(503, None), T),
        # Dev.to: by status code.
        (None, answer(401, {"error": "unauthorized"}), A),
        (None, answer(422, {"error": "Title can't be blank"}), P),
        (None, answer(429, {"error": "Rate limit"}, {"Retry-After": "1"}), T),
        (None, answer(500, {"error": "x"}), T),
    ],
)
def test_every_provider_error_is_classified(classify, response, expected):
    assert classified(classify, response) == expected


def test_rate_limits_say_when_to_come_back():
    reset = (timezone.now() + timedelta(seconds=90)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    error = mastodon.classify(answer(429, {"error": "x"}, {"X-RateLimit-Reset": reset}))
    assert error is not None
    assert error.retry_after is not None
    assert 80 < error.retry_after <= 90
    at = str(int(timezone.now().timestamp()) + 60)
    error = bluesky.classify(answer(429, {"error": "x"}, {"RateLimit-Reset": at}))
    assert error is not None
    assert error.retry_after is not None
    assert 50 < error.retry_after <= 60
    linkedin_busy = outbound.classify(answer(429, {}, {"Retry-After": "120"}))
    assert linkedin_busy is not None
    assert linkedin_busy.retry_after == 120


def test_linkedin_commentary_is_escaped_little_text_with_hashtag_templates():
    assert linkedin.commentary("Ship it (today) #launch @ 5*2 [x]") == (
        "Ship it \\(today\\) {hashtag|\\#|launch} \\@ 5\\*2 \\[x\\]"
    )


def test_bluesky_facets_use_utf8_byte_offsets():
    text = "Café ☕ https://example.com/a #design"
    found = bluesky.facets(text)
    link, tag = found
    encoded = text.encode()
    start, end = link["index"]["byteStart"], link["index"]["byteEnd"]
    assert encoded[start:end] == b"https://example.com/a"
    assert link["features"][0]["uri"] == "https://example.com/a"
    start, end = tag["index"]["byteStart"], tag["index"]["byteEnd"]
    assert encoded[start:end] == b"#design"
    assert tag["features"][0]["tag"] == "design"


def test_bluesky_record_keys_are_stable_sortable_tids():
    moment = timezone.now()
    key = bluesky.tid(moment, "record-1")
    assert len(key) == 13
    assert set(key) <= set(bluesky.TID_ALPHABET)
    assert key == bluesky.tid(moment, "record-1")
    assert key != bluesky.tid(moment, "record-2")
    assert bluesky.tid(moment + timedelta(seconds=1), "record-1") > key


def account_of(client: Any, providers: Any, provider: str) -> SocialAccount:
    extra = {"instance": providers.mastodon.url} if provider == "mastodon" else {}
    response = connect(client, provider, **extra)
    assert response.status_code == 200, response.content
    return SocialAccount.objects.get(pk=response.json()["data"]["id"])


IMAGE = MediaFile(url="https://cdn.example.com/a.jpg", mime="image/jpeg", data=b"\xff\xd8jpeg")
CONTENT = {
    "linkedin": Content(text="Launch day #design", link="https://example.com/launch",
                        title="Launch"),
    "facebook": Content(text="Launch day #design", link="https://example.com/launch"),
    "instagram": Content(text="Launch day #design", media=(IMAGE,)),
    "bluesky": Content(text="Launch day https://example.com/launch #design"),
    "mastodon": Content(text="Launch day https://example.com/launch #design"),
    "devto": Content(text="# Launch\n\nIt shipped.", title="Launch day", tags=("design",)),
}  # fmt: skip


def act(account: SocialAccount, call: Any) -> Any:
    """`call(adapter, credentials)` as the services make it: refreshed first, renewed
    credentials kept after."""
    adapter = NETWORKS[account.provider].adapter
    credentials = credentials_of(account)
    adapter.refresh(credentials)
    try:
        return call(adapter, credentials)
    finally:
        credentials_keep(account, credentials)


def publish(account: SocialAccount, content: Content, attempt: Attempt) -> Published:
    return act(account, lambda adapter, c: adapter.publish(c, content, attempt))


@pytest.mark.parametrize("provider", list(CONTENT))
def test_publish_then_lookup_and_metrics_on_each_provider(ada_client, providers, provider):
    account = account_of(ada_client, providers, provider)
    attempt = Attempt(key="0d8c4f5e-1111-4222-8333-944445555666")
    published = publish(account, CONTENT[provider], attempt)
    assert published.provider_post_id
    assert published.url.startswith("http")
    assert len(providers.by_provider(provider).posts) == 1
    # An unknown outcome is resolved by looking the post up among the recent ones.
    found = act(account, lambda a, c: a.lookup(c, CONTENT[provider], attempt))
    assert found == published
    missing = Content(text="never published", title="never")
    assert act(account, lambda a, c: a.lookup(c, missing, attempt)) is None
    metrics = act(account, lambda a, c: a.metrics(c, published))
    assert metrics.engagement > 0


def test_provider_request_shapes_on_publish(ada_client, providers):
    attempt = Attempt(key="key-1")
    publish(account_of(ada_client, providers, "linkedin"), CONTENT["linkedin"], attempt)
    post = providers.linkedin.received("POST", "/rest/posts")[0]
    assert post.headers["LinkedIn-Version"] == "202510"
    assert post.headers["X-Restli-Protocol-Version"] == "2.0.0"
    assert post.body["author"] == "urn:li:person:li-ada-42"
    assert post.body["commentary"] == "Launch day {hashtag|\\#|design}"
    assert post.body["content"] == {
        "article": {"source": "https://example.com/launch", "title": "Launch"}
    }
    assert post.body["distribution"]["feedDistribution"] == "MAIN_FEED"

    publish(account_of(ada_client, providers, "instagram"), CONTENT["instagram"], attempt)
    container = providers.meta.received("POST", "/v24.0/17841400000000001/media")[0]
    assert container.body == {"image_url": IMAGE.url, "caption": "Launch day #design"}
    assert providers.meta.received("POST", "/v24.0/17841400000000001/media_publish")

    publish(account_of(ada_client, providers, "mastodon"), CONTENT["mastodon"], attempt)
    status = providers.mastodon.received("POST", "/api/v1/statuses")[0]
    assert status.headers["Idempotency-Key"] == "key-1"
    assert status.body["visibility"] == "public"

    publish(account_of(ada_client, providers, "devto"), CONTENT["devto"], attempt)
    article = providers.devto.received("POST", "/api/articles")[0].body["article"]
    assert article == {"title": "Launch day", "body_markdown": "# Launch\n\nIt shipped.",
                       "published": True, "tags": ["design"]}  # fmt: skip


def test_repeated_creates_do_not_duplicate(ada_client, providers):
    """Bluesky's chosen record key and Mastodon's Idempotency-Key make a retried create land on
    the first post; LinkedIn's DUPLICATE_POST is resolved by the lookup when the earlier
    attempt's outcome was unknown, and is a refusal otherwise (the same text published before
    is not this record's post)."""
    for provider in ("bluesky", "mastodon", "linkedin"):
        account = account_of(ada_client, providers, provider)
        attempt = Attempt(key=f"record-{provider}")
        first = publish(account, CONTENT[provider], attempt)
        again = publish(account, CONTENT[provider], replace(attempt, unknown=True))
        assert again == first
        assert len(providers.by_provider(provider).posts) == 1
    with pytest.raises(outbound.PermanentError, match="DUPLICATE_POST"):
        publish(account_of(ada_client, providers, "linkedin"), CONTENT["linkedin"],
                Attempt(key="record-linkedin"))  # fmt: skip
    assert len(providers.linkedin.posts) == 1


def test_bluesky_images_are_uploaded_as_blobs_with_alt_text(ada_client, providers):
    account = account_of(ada_client, providers, "bluesky")
    image = MediaFile(url="https://cdn.example.com/a.png", mime="image/png", alt="A chart",
                      data=b"\x89PNG")  # fmt: skip
    publish(account, Content(text="See the chart", media=(image,)), Attempt(key="k"))
    record = providers.bluesky.posts[0]
    assert record["embed"]["$type"] == "app.bsky.embed.images"
    assert record["embed"]["images"][0]["alt"] == "A chart"
    upload = providers.bluesky.received("POST", "/xrpc/com.atproto.repo.uploadBlob")[0]
    assert (upload.headers["Content-Type"], upload.body) == ("image/png", b"\x89PNG")


def test_bluesky_refreshes_an_expiring_session_instead_of_logging_in(ada_client, providers):
    providers.bluesky.access_lifetime = 60  # the access token is about to expire
    account = account_of(ada_client, providers, "bluesky")
    old_access = str(account.access_token)
    publish(account, CONTENT["bluesky"], Attempt(key="k"))
    account.refresh_from_db()
    assert str(account.access_token) != old_access
    assert providers.bluesky.received("POST", "/xrpc/com.atproto.server.refreshSession")
    assert providers.bluesky.sessions_created == 1  # no new login


@pytest.mark.parametrize("provider", list(CONTENT))
def test_an_authentication_failure_marks_the_account_expired(ada_client, providers, provider):
    account = account_of(ada_client, providers, provider)
    providers.by_provider(provider).expired = True
    response = ada_client.post(
        "/api/social/publish",
        {"title": "Launch", "content": "Launch day #design", "mediaUrls": [providers.image()],
         "accountIds": [str(account.id)]},
        format="json",
    )  # fmt: skip
    (result,) = response.json()["data"]
    assert (result["success"], result["error"]["code"]) == (False, "account_expired")
    account.refresh_from_db()
    assert account.status == "expired"
    notice = Notification.objects.get(type="token_expiring")
    assert notice.metadata["expired"] is True
    assert notice.metadata["platform"] == provider
    # Listed (so the client offers a reconnect); reconnecting makes it connected again.
    listed = ada_client.get("/api/social/accounts").json()["data"]
    assert [(a["id"], a["status"]) for a in listed] == [(str(account.id), "expired")]
    providers.by_provider(provider).expired = False
    account_of(ada_client, providers, provider)
    account.refresh_from_db()
    assert account.status == "connected"


def test_a_transient_failure_leaves_the_account_connected(ada_client, providers):
    account = account_of(ada_client, providers, "devto")
    providers.devto.fail = "busy"
    with pytest.raises(outbound.TransientError) as raised:
        publish(account, CONTENT["devto"], Attempt(key="k"))
    assert raised.value.retry_after == 30
    assert raised.value.maybe_delivered is False  # a 429 refused before doing anything
    account.refresh_from_db()
    assert account.status == "connected"


def test_instagram_waits_for_a_container_only_when_graph_says_it_is_not_ready(
    ada_client, providers
):
    account = account_of(ada_client, providers, "instagram")
    publish(account, CONTENT["instagram"], Attempt(key="first"))
    assert not [c for c in providers.meta.calls if c.q("fields") == "status_code"]
    providers.meta.slow_containers = True
    second = Content(text="Second", media=(IMAGE,))
    published = publish(account, second, Attempt(key="second"))
    assert published.url.startswith("https://www.instagram.com/p/")
    assert [c for c in providers.meta.calls if c.q("fields") == "status_code"]
    assert len([p for p in providers.meta.posts if p.get("ig")]) == 2
