"""The behaviours every network owes (social.md sections 2, 4, 5, 12, 13), run against each
registered network's stand-in: connecting, publishing a text, a transient failure retried, a
lost answer resolved by a lookup, an expired token, its limits, its metrics (none where the
platform gives none). A network added to the registry gets them all; one whose stand-in cannot
play them fails here."""

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from social.models import AnalyticsRecord, ScheduledRecord, SocialAccount
from social.networks import NETWORKS
from social.tasks import metrics_collect_task
from tests.social.conftest import REDIRECT_URI, connect, consent
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.videos import mp4

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

NETWORK_IDS = list(NETWORKS)
OAUTH = [provider for provider, network in NETWORKS.items() if network.connect_method == "oauth"]
# A lost answer is looked up (or its key repeated) where the network can be asked; where it
# cannot (`none`: Discord), the record is Unconfirmed at once and nothing is sent again.
ASKABLE = [provider for provider, network in NETWORKS.items() if network.exactly_once != "none"]
UNASKABLE = [provider for provider, network in NETWORKS.items() if network.exactly_once == "none"]


def post_body(network: str, providers: Any, client: Any) -> dict[str, Any]:
    """The smallest post the network takes: a text, and an image where it needs media; a
    video, uploaded, where it takes nothing else (YouTube), processed at the first look; the
    options it requires (TikTok's privacy level), each its first value."""
    can = NETWORKS[network].capabilities
    body = required_options(network)
    if can.video is not None and not can.images:
        providers.by_provider(network).video_polls = 0
        return {**body, "mediaIds": [uploaded_video(client)]}
    if NETWORKS[network].limits["mediaRequired"]:
        return {**body, "mediaUrls": [providers.image()]}
    return body


def required_options(network: str) -> dict[str, Any]:
    options = {o.name: o.choices[0] for o in NETWORKS[network].options if o.required}
    return {"variants": {network: {"options": options}}} if options else {}


def uploaded_video(client: Any) -> str:
    upload = SimpleUploadedFile("clip.mp4", mp4(seconds=5.0), content_type="video/mp4")
    response = client.post("/api/social/media", {"file": upload}, format="multipart")
    assert response.status_code == 200, response.content
    return str(response.json()["data"]["id"])


def connecting(ada_client: Any, network: str, providers: Any, **body: Any) -> Any:
    extra = {"instance": providers.mastodon.url} if network == "mastodon" else {}
    return connect(ada_client, network, **extra, **body)


def connected(ada_client: Any, network: str, providers: Any) -> dict[str, Any]:
    response = connecting(ada_client, network, providers)
    assert response.status_code == 200, response.content
    account: dict[str, Any] = response.json()["data"]
    return account


def scheduled(ada_client: Any, providers: Any, account: dict[str, Any], network: str) -> str:
    """A post scheduled to the account, due now; its record's id."""
    (record_id,) = schedule(
        ada_client, {network: account}, network, **post_body(network, providers, ada_client)
    )
    return record_id


@pytest.fixture(params=NETWORK_IDS)
def network(request) -> str:
    provider: str = request.param
    return provider


@pytest.fixture
def account(ada_client, providers, network) -> dict[str, Any]:
    return connected(ada_client, network, providers)


def test_connect_stores_the_account_and_never_its_credentials(ada_client, account, network):
    assert (account["provider"], account["status"]) == (network, "connected")
    assert account["provider_user_id"]
    assert set(account["limits"]) >= set(NETWORKS[network].limits)
    listed = ada_client.get("/api/social/accounts").json()["data"]
    assert [a["id"] for a in listed] == [account["id"]]
    assert "token" not in str(listed).lower()


def test_a_refused_connection_stores_nothing(ada_client, providers, network):
    response = connecting(ada_client, network, providers, code="wrong-code")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "provider_auth_failed"
    assert response.json()["error"]["details"]["provider"] == network
    assert not SocialAccount.objects.exists()


@pytest.mark.parametrize("network", OAUTH)
def test_a_consent_state_is_used_once(ada_client, providers, network):
    query = {"instance": providers.mastodon.url} if network == "mastodon" else {}
    back = consent(ada_client, network, **query)
    body = {"provider": network, "code": back["code"], "state": back["state"],
            "redirectUri": REDIRECT_URI, **query}  # fmt: skip
    assert ada_client.post("/api/social/connect", body, format="json").status_code == 200
    replay = ada_client.post("/api/social/connect", body, format="json")
    assert (replay.status_code, replay.json()["error"]["code"]) == (400, "invalid_state")
    assert SocialAccount.objects.count() == 1


def test_publish_a_text(ada_client, providers, account, network):
    response = ada_client.post(
        "/api/social/publish",
        {"title": "Launch", "content": "Launch day #launch", "accountIds": [account["id"]],
         **post_body(network, providers, ada_client)},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    (result,) = response.json()["data"]
    assert (result["provider"], result["success"]) == (network, True), result
    assert len(providers.by_provider(network).posts) == 1


def test_a_transient_failure_is_retried_then_published(
    client, ada_client, providers, account, network
):
    standin = providers.by_provider(network)
    record_id = scheduled(ada_client, providers, account, network)
    standin.fail = "down"
    first = run(client).json()["data"]["results"][0]
    assert (first["status"], first["error"]["code"]) == ("Scheduled", "retry_scheduled")
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["history"][-1]["error"]["category"] == "platform_outage"
    standin.fail = ""
    make_due([record_id])
    second = run(client).json()["data"]["results"][0]
    assert (second["success"], second["status"]) == (True, "Published")
    assert len(standin.posts) == 1


@pytest.mark.parametrize("network", ASKABLE)
def test_a_lost_answer_is_resolved_by_a_lookup(
    client, ada_client, providers, account, network, settings
):
    """The call went out and its answer never came: the next attempt asks the network before
    creating anything, so the post exists once."""
    settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 0.5
    standin = providers.by_provider(network)
    (record_id,) = schedule(
        ada_client, {network: account}, network, **post_body(network, providers, ada_client)
    )
    standin.fail, standin.hang = "timeout", 0.8
    assert run(client).json()["data"]["results"][0]["status"] == "Scheduled"
    assert ScheduledRecord.objects.get(pk=record_id).outcome_unknown is True
    assert standin.wait_idle()
    standin.fail = ""
    make_due([record_id])
    second = run(client).json()["data"]["results"][0]
    assert (second["success"], second["status"]) == (True, "Published")
    assert len(standin.posts) == 1


@pytest.mark.parametrize("network", UNASKABLE)
def test_a_lost_answer_is_unconfirmed_at_once_and_never_sent_again(
    client, ada_client, providers, account, network, settings
):
    settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 0.5
    standin = providers.by_provider(network)
    (record_id,) = schedule(
        ada_client, {network: account}, network, **post_body(network, providers, ada_client)
    )
    standin.fail, standin.hang = "timeout", 0.8
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Unconfirmed", "unconfirmed")
    assert standin.wait_idle()
    standin.fail = ""
    make_due([record_id])
    run(client)
    assert ScheduledRecord.objects.get(pk=record_id).status == "Unconfirmed"
    assert len(standin.posts) == 1


def test_an_expired_token_is_an_authentication_failure(
    client, ada_client, providers, account, network
):
    (record_id,) = schedule(
        ada_client, {network: account}, network, **post_body(network, providers, ada_client)
    )
    providers.by_provider(network).expired = True
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["error"]["category"] == "auth_expired"
    assert NETWORKS[network].name in detail["error"]["remedy"]
    assert SocialAccount.objects.get(pk=account["id"]).status == "expired"
    assert providers.by_provider(network).posts == []


def test_its_limits_are_enforced_before_anything_is_sent(ada_client, providers, account, network):
    maximum = int(account["limits"]["maxCharacters"])
    response = ada_client.post(
        "/api/social/publish",
        {"title": "Launch", "content": "x" * (maximum + 1), "accountIds": [account["id"]],
         **post_body(network, providers, ada_client)},
        format="json",
    )  # fmt: skip
    assert response.status_code == 400, response.content
    assert "content" in str(response.json()["error"]["details"])
    assert providers.by_provider(network).posts == []
    assert ScheduledRecord.objects.count() == 0


def test_its_metrics_are_collected(ada_client, providers, account, network):
    response = ada_client.post(
        "/api/social/publish",
        {"title": "Launch", "content": "We shipped.", "accountIds": [account["id"]],
         **post_body(network, providers, ada_client)},
        format="json",
    )  # fmt: skip
    assert response.json()["data"][0]["success"], response.content
    if not NETWORKS[network].metrics:  # the platform gives none (a Telegram bot)
        assert metrics_collect_task.delay().get() == {"records": 0}
        assert AnalyticsRecord.objects.count() == 0
        return
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    (row,) = ada_client.get("/api/social/analytics").json()["data"]
    assert (row["provider"], row["accountId"]) == (network, account["id"])
    assert AnalyticsRecord.objects.count() == 1
