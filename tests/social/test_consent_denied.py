"""A declined consent (social.md section 13): the network sends the user back with `error` and
`state`; the client reports it, `POST /api/social/connect {provider, state, redirectUri,
error}`, and gets 400 `consent_denied`, the state used up and nothing stored, on every OAuth
network."""

import dataclasses
from typing import Any

import pytest

from notifications.models import Notification
from social.models import ConnectState, SocialAccount
from social.networks import NETWORKS
from tests.social.conftest import REDIRECT_URI, connect

pytestmark = pytest.mark.django_db

OAUTH = [provider for provider, network in NETWORKS.items() if network.connect_method == "oauth"]


def authorized(client: Any, providers: Any, provider: str) -> tuple[str, dict[str, str]]:
    """Ask our API for the consent page: the state it handed out, and the fields a connect
    of this network also carries (Mastodon's server)."""
    extra = {"instance": providers.mastodon.url} if provider == "mastodon" else {}
    response = client.get(
        f"/api/social/connect/{provider}/authorize", {"redirectUri": REDIRECT_URI, **extra}
    )
    assert response.status_code == 200, response.content
    return str(response.json()["data"]["state"]), extra


def calls_made(providers: Any) -> dict[str, int]:
    """How many calls each stand-in has had."""
    return {f.name: len(getattr(providers, f.name).calls) for f in dataclasses.fields(providers)}


def declined(client: Any, provider: str, state: str, **extra: Any) -> Any:
    body = {"provider": provider, "state": state, "redirectUri": REDIRECT_URI,
            "error": "access_denied", **extra}  # fmt: skip
    return client.post("/api/social/connect", body, format="json")


def test_the_oauth_networks_are_those_of_the_registry():
    assert {"linkedin", "facebook", "instagram", "mastodon"} <= set(OAUTH)


@pytest.mark.parametrize("provider", OAUTH)
def test_a_declined_consent_is_400_consent_denied_and_uses_the_state_up(
    ada_client, providers, provider
):
    state, extra = authorized(ada_client, providers, provider)
    calls = calls_made(providers)
    response = declined(ada_client, provider, state)  # no code, no server: the redirect's fields
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "consent_denied"
    assert error["details"] == {"provider": provider, "error": "access_denied"}
    # Nothing reached the network, nothing was stored, the user was not told of a failure.
    assert calls_made(providers) == calls
    assert not SocialAccount.objects.exists()
    assert not Notification.objects.filter(type="account_connect_failed").exists()
    # The state is used up: neither a second report nor the code flow can use it again.
    (consent,) = ConnectState.objects.filter(provider=provider)
    assert consent.used_at is not None
    again = declined(ada_client, provider, state)
    assert (again.status_code, again.json()["error"]["code"]) == (400, "invalid_state")
    late = ada_client.post(
        "/api/social/connect",
        {"provider": provider, "code": "any", "state": state, "redirectUri": REDIRECT_URI,
         **extra},
        format="json",
    )  # fmt: skip
    assert (late.status_code, late.json()["error"]["code"]) == (400, "invalid_state")


def test_a_declined_consent_needs_a_state_of_this_user_for_this_network(
    ada_client, providers, bob_client
):
    state, _ = authorized(ada_client, providers, "linkedin")
    for client, provider, sent in [
        (bob_client, "linkedin", state),  # another user's
        (ada_client, "facebook", state),  # another network's
        (ada_client, "linkedin", "made-up"),
    ]:
        response = declined(client, provider, sent)
        assert (response.status_code, response.json()["error"]["code"]) == (400, "invalid_state")
    missing = ada_client.post(
        "/api/social/connect",
        {"provider": "linkedin", "redirectUri": REDIRECT_URI, "error": "access_denied"},
        format="json",
    )
    assert missing.status_code == 400
    assert "state" in missing.json()["error"]["details"]
    # Another redirect URI does not spend the state (as for a code): the right one still can.
    wrong = declined(ada_client, "linkedin", state, redirectUri="https://evil.example.net/cb")
    assert wrong.json()["error"]["code"] == "invalid_state"
    assert declined(ada_client, "linkedin", state).json()["error"]["code"] == "consent_denied"


def test_credential_networks_have_no_consent_to_decline_and_a_code_is_still_required(
    ada_client, providers
):
    response = declined(ada_client, "bluesky", "any")
    assert response.status_code == 400
    assert "error" in response.json()["error"]["details"]
    missing = ada_client.post(
        "/api/social/connect", {"provider": "linkedin", "state": "any"}, format="json"
    )
    assert missing.status_code == 400
    assert "code" in missing.json()["error"]["details"]
    # A consent given after a decline still connects.
    assert connect(ada_client, "linkedin").status_code == 200
