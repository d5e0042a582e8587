"""Fixtures of the social hub's tests: the provider stand-ins, the consent flow a browser would
go through, and Ada's six connected accounts."""

from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.utils import timezone

from tests.social.standins import (
    BLUESKY_APP_PASSWORD,
    BLUESKY_HANDLE,
    DEVTO_KEY,
    Providers,
    provider_standins,
)
from tests.social.telegram_standin import TELEGRAM_CHANNEL, TELEGRAM_TOKEN

REDIRECT_URI = "https://app.example.com/oauth/callback"
CRON_SECRET = "cron-secret-0123456789"


@pytest.fixture
def providers(settings) -> Any:
    with provider_standins() as started:
        for name, value in started.settings().items():
            setattr(settings, name, value)
        yield started


@pytest.fixture
def cron_secret(settings) -> str:
    """The scheduler's cron endpoint answers only callers that send this secret."""
    settings.CRON_SECRET = CRON_SECRET
    return CRON_SECRET


def consent(client: Any, provider: str, prefix: str = "/api", **query: str) -> dict[str, str]:
    """Ask our API for the consent page, "approve" it at the stand-in as the user's browser
    would, and return what the provider's redirect carried back (code, state)."""
    response = client.get(
        f"{prefix}/social/connect/{provider}/authorize",
        {"redirectUri": REDIRECT_URI, **query},
    )
    assert response.status_code == 200, response.content
    page = requests.get(response.json()["data"]["url"], allow_redirects=False, timeout=5)
    assert page.status_code == 302, page.content
    location = page.headers["Location"]
    assert location.startswith(REDIRECT_URI)
    back = {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}
    assert back["state"] == response.json()["data"]["state"]
    return back


def connect(client: Any, provider: str, prefix: str = "/api", **extra: Any) -> Any:
    """Connect `provider` the way the web client does; the response."""
    if provider == "devto":
        body: dict[str, Any] = {"provider": "devto", "code": DEVTO_KEY}
    elif provider == "telegram":
        body = {"provider": "telegram", "code": TELEGRAM_TOKEN, "identifier": TELEGRAM_CHANNEL}
    elif provider == "bluesky":
        body = {"provider": "bluesky", "code": BLUESKY_APP_PASSWORD, "identifier": BLUESKY_HANDLE}
    else:
        query = {"instance": extra["instance"]} if provider == "mastodon" else {}
        back = consent(client, provider, prefix, **query)
        body = {"provider": provider, "code": back["code"], "state": back["state"],
                "redirectUri": REDIRECT_URI}  # fmt: skip
    body.update(extra)
    return client.post(f"{prefix}/social/connect", body, format="json")


def connected(client: Any, provider: str, **extra: Any) -> dict[str, Any]:
    """The account `connect` made (its connection succeeded)."""
    response = connect(client, provider, **extra)
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def account_fixture(network: str, **extra: Any) -> Any:
    """A network's tests' `account` fixture: the account `connected` makes (`extra` in the
    connect body)."""

    @pytest.fixture(name="account")
    def account(ada_client: Any, providers: Providers) -> dict[str, Any]:
        return connected(ada_client, network, **extra)

    return account


def accounts_fixture(network: str) -> Any:
    """A network's tests' `accounts` fixture: its `account` by network (what the scheduler's
    test helpers take)."""

    @pytest.fixture(name="accounts")
    def accounts(account: dict[str, Any]) -> dict[str, Any]:
        return {network: account}

    return accounts


def publish_request(client: Any, account: dict[str, Any], **body: Any) -> Any:
    """Ask to publish now to one account ("Launch day" unless `content` says otherwise); the
    response."""
    return client.post(
        "/api/social/publish",
        {"content": "Launch day", **body, "accountIds": [account["id"]]},
        format="json",
    )


def publisher(**defaults: Any) -> Callable[..., Any]:
    """`publish_request` with a network's own post (`defaults`) unless the body says otherwise."""

    def publish(client: Any, account: dict[str, Any], **body: Any) -> Any:
        return publish_request(client, account, **{**defaults, **body})

    return publish


def publish(client: Any, account: dict[str, Any], **body: Any) -> dict[str, Any]:
    """Publish now to one account ("Launch day" unless `content` says otherwise); its entry."""
    response = publish_request(client, account, **body)
    assert response.status_code == 200, response.content
    (entry,) = response.json()["data"]
    return dict(entry)


def published(client: Any, account: dict[str, Any], **body: Any) -> dict[str, Any]:
    """`publish`'s entry, which succeeded."""
    entry = publish(client, account, **body)
    assert entry["success"], entry
    return entry


def schedule_later(client: Any, account: dict[str, Any], hours: float, **body: Any) -> None:
    """One post (`body`) scheduled to the account `hours` from now."""
    when = (timezone.now() + timedelta(hours=hours)).isoformat()
    response = client.post(
        "/api/social/schedule",
        {**body, "scheduledTime": when, "accountIds": [account["id"]]},
        format="json",
    )
    assert response.status_code == 200, response.content


EVERY_DAY_AT_NINE = {
    "slots": [
        {"day": day, "time": "09:00"} for day in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    ]
}


def queue_one(
    client: Any, account: dict[str, Any], slots: dict[str, Any] = EVERY_DAY_AT_NINE, **body: Any
) -> dict[str, Any]:
    """The account's queue given `slots`, then one post (`body`) queued to it; its record."""
    response = client.put(f"/api/social/queue/{account['id']}", slots, format="json")
    assert response.status_code == 200
    queued = client.post(
        "/api/social/queue", {**body, "accountIds": [account["id"]]}, format="json"
    )
    assert queued.status_code == 200, queued.content
    (record,) = queued.json()["data"]["scheduledRecords"]
    return dict(record)


def image(client: Any, url: str, alt: str = "", size: int = 2048) -> str:
    """A JPEG at `url` added to the library (with `alt` text where given); its id."""
    body = {"type": "image/jpeg", "url": url, "size": size, **({"alt": alt} if alt else {})}
    response = client.post("/api/social/media", body, format="json")
    assert response.status_code == 200, response.content
    return str(response.json()["data"]["id"])


@pytest.fixture
def connect_all(ada_client, providers: Providers) -> Any:
    """Connect all six providers; their account records by provider."""

    def run(prefix: str = "/api") -> dict[str, dict[str, Any]]:
        accounts = {}
        for provider in ("linkedin", "facebook", "instagram", "bluesky", "mastodon", "devto"):
            extra = {"instance": providers.mastodon.url} if provider == "mastodon" else {}
            response = connect(ada_client, provider, prefix, **extra)
            assert response.status_code == 200, (provider, response.content)
            accounts[provider] = response.json()["data"]
        return accounts

    return run


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


@pytest.fixture
def ada_accounts(connect_all) -> dict[str, dict[str, Any]]:
    """Ada's six accounts, connected through /api; their records by provider."""
    return connect_all()
