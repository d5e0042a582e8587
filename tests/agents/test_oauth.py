"""OAuth 2.1 for MCP clients, over HTTP (agents.md section 1): the discovery documents, dynamic
client registration, the authorization request (400 JSON or a redirect), the consent call,
the token endpoint (PKCE, a code used once, refresh tokens rotated), revocation, and what a
grant is: an agent connection of `kind: oauth`, revoked with its tokens."""

import importlib
import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from django.urls import clear_url_caches
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application, Grant, RefreshToken

from accounts.models import ApiKey
from agents.models import AgentConnection, OAuthRequest
from agents.oauth.services import oauth_connection_for_token
from agents.tasks import oauth_purge_task
from tests.agents.oauth_flow import ALL_SCOPES, REDIRECT, Flow, query_of

pytestmark = pytest.mark.django_db

BASE = "http://127.0.0.1:8000"  # PUBLIC_URL in the tests (the server's own address)


@pytest.fixture
def flow(settings) -> Flow:
    settings.PUBLIC_URL = BASE
    made = Flow(Client())
    assert made.register().status_code == 201
    return made


def consent(api: Any, request_id: str, **body: Any) -> Any:
    return api.post(f"/api/oauth/requests/{request_id}", body, format="json")


def approved(flow: Flow, api: Any, user: Any, scopes: list[str], **body: Any) -> dict[str, Any]:
    """The flow up to the tokens: authorize, consent with `scopes`, exchange the code."""
    request_id = flow.request_id(flow.authorize())
    decided = consent(
        api,
        request_id,
        approve=True,
        scopes=scopes,
        workspaceId=str(user.personal_workspace.pk),
        **body,
    )
    assert decided.status_code == 200, decided.content
    redirect = decided.json()["data"]["redirectUrl"]
    assert redirect.startswith(REDIRECT)
    assert query_of(redirect)["state"] == flow.state
    tokens = flow.token(query_of(redirect)["code"])
    assert tokens.status_code == 200, tokens.content
    return dict(tokens.json())


# --- Discovery -----------------------------------------------------------------------------------


def test_the_protected_resource_document_names_mcp_and_its_server(settings):
    settings.PUBLIC_URL = BASE
    for path in (
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ):
        answer = Client().get(path)
        assert answer.status_code == 200
        assert answer.json() == {
            "resource": f"{BASE}/mcp",
            "authorization_servers": [BASE],
            "scopes_supported": [*ALL_SCOPES.split(), "notifications:write", "webhooks:write"],
            "bearer_methods_supported": ["header"],
            "resource_name": "Freelancer Growth Platform MCP server",
        }


def test_the_authorization_server_document(settings):
    settings.PUBLIC_URL = BASE
    answer = Client().get("/.well-known/oauth-authorization-server")
    assert answer.status_code == 200
    assert answer.json() == {
        "issuer": BASE,
        "authorization_endpoint": f"{BASE}/oauth/authorize",
        "token_endpoint": f"{BASE}/oauth/token",
        "registration_endpoint": f"{BASE}/oauth/register",
        "revocation_endpoint": f"{BASE}/oauth/revoke",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": [*ALL_SCOPES.split(), "notifications:write", "webhooks:write"],
    }


def test_the_oauth_scopes_are_the_api_key_scopes(settings):
    from accounts.scopes import Scope

    assert settings.OAUTH2_PROVIDER["SCOPES"] == {scope.value: scope.label for scope in Scope}


# --- Dynamic client registration -------------------------------------------------------------


def test_a_public_client_registers_with_https_or_loopback_redirects():
    answer = Flow(Client()).register(
        redirect_uris=["https://claude.ai/api/mcp/auth_callback", "http://localhost:6274/cb"],
        token_endpoint_auth_method="none",
        grant_types=["authorization_code", "refresh_token"],
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    client_id = body.pop("client_id")
    assert isinstance(body.pop("client_id_issued_at"), int)
    assert body == {
        "client_name": "Claude",
        "redirect_uris": ["https://claude.ai/api/mcp/auth_callback", "http://localhost:6274/cb"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    application = Application.objects.get(client_id=client_id)
    assert (application.client_type, application.name) == ("public", "Claude")


@pytest.mark.parametrize(
    ("metadata", "error"),
    [
        ({"redirect_uris": ["http://evil.example/cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["https://claude.ai/cb#frag"]}, "invalid_redirect_uri"),
        ({"redirect_uris": ["myapp://cb"]}, "invalid_redirect_uri"),
        ({"redirect_uris": []}, "invalid_redirect_uri"),
        ({"token_endpoint_auth_method": "client_secret_basic"}, "invalid_client_metadata"),
        ({"grant_types": ["client_credentials"]}, "invalid_client_metadata"),
        ({"response_types": ["token"]}, "invalid_client_metadata"),
        ({"client_name": ""}, "invalid_client_metadata"),
    ],
)
def test_a_bad_registration_is_an_rfc_7591_error_and_registers_nothing(metadata, error):
    answer = Flow(Client()).register(**metadata)
    assert answer.status_code == 400
    assert answer.json()["error"] == error
    assert not Application.objects.exists()


def test_a_body_that_is_not_json_is_invalid_client_metadata():
    answer = Client().post("/oauth/register", "nope", content_type="application/json")
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_client_metadata")


def test_registrations_are_rate_limited_per_address(monkeypatch):
    monkeypatch.setattr("agents.oauth.clients.REGISTER_LIMIT", 2)
    flow = Flow(Client())
    assert [flow.register().status_code for _ in range(3)] == [201, 201, 429]
    assert Application.objects.count() == 2


# --- The authorization request ---------------------------------------------------------------


def test_an_unknown_client_or_an_unregistered_redirect_is_400_json_never_a_redirect(flow):
    unknown = Flow(Client(), client_id="no-such-client").authorize()
    assert (unknown.status_code, unknown.json()["error"]) == (400, "invalid_request")
    assert "Location" not in unknown
    elsewhere = flow.authorize(redirect_uri="https://evil.example/cb")
    assert (elsewhere.status_code, elsewhere.json()["error"]) == (400, "invalid_request")
    assert "Location" not in elsewhere
    assert not OAuthRequest.objects.exists()


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"code_challenge": "", "code_challenge_method": ""}, "invalid_request"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"scope": "posts:read admin:everything"}, "invalid_scope"),
        ({"resource": "https://elsewhere.example/mcp"}, "invalid_target"),
        ({"response_type": "token"}, "unauthorized_client"),
    ],
)
def test_other_authorization_errors_go_back_to_the_client_with_the_state(flow, overrides, error):
    answer = flow.authorize(**overrides)
    assert answer.status_code == 302, answer.content
    assert answer["Location"].startswith(REDIRECT)
    told = query_of(answer["Location"])
    assert (told["error"], told["state"]) == (error, flow.state)
    assert not OAuthRequest.objects.exists()


def test_a_good_request_waits_for_consent_in_the_web_client(flow, settings):
    settings.APP_URL = "https://app.example"
    answer = flow.authorize(resource=f"{BASE}/mcp")
    assert answer.status_code == 302
    assert answer["Location"].startswith("https://app.example/oauth/consent?request=")
    pending = OAuthRequest.objects.get(pk=flow.request_id(answer))
    assert pending.scopes == ALL_SCOPES.split()
    assert pending.credentials["resource"] == [f"{BASE}/mcp"]
    assert pending.expires_at - pending.created_at == timedelta(minutes=10)


def test_a_loopback_redirect_may_come_back_on_another_port(flow):
    answer = flow.authorize(redirect_uri="http://127.0.0.1:5555/callback")
    pending = OAuthRequest.objects.get(pk=flow.request_id(answer))
    assert pending.credentials["redirect_uri"] == "http://127.0.0.1:5555/callback"


# --- The consent call --------------------------------------------------------------------------


def test_the_first_signed_in_user_reads_the_request_another_finds_nothing(
    flow, ada, ada_client, bob_client
):
    request_id = flow.request_id(flow.authorize())
    read = ada_client.get(f"/api/oauth/requests/{request_id}")
    assert read.status_code == 200, read.content
    data = read.json()["data"]
    assert data["client"]["id"] == flow.client_id
    assert data == {
        "id": request_id,
        "client": {"id": flow.client_id, "name": "Claude"},
        "redirectHost": "127.0.0.1",
        "scopes": ALL_SCOPES.split(),
        "expires_at": data["expires_at"],
    }
    assert bob_client.get(f"/api/oauth/requests/{request_id}").status_code == 404
    stolen = consent(bob_client, request_id, approve=True, scopes=["posts:read"], workspaceId=None)
    assert stolen.status_code == 404
    assert not AgentConnection.objects.exists()
    assert Client().get(f"/api/oauth/requests/{request_id}").status_code == 401


def test_a_refusal_sends_access_denied_and_a_second_decision_is_gone(flow, ada, ada_client):
    request_id = flow.request_id(flow.authorize())
    refused = consent(ada_client, request_id, approve=False)
    assert refused.status_code == 200
    told = query_of(refused.json()["data"]["redirectUrl"])
    assert (told["error"], told["state"]) == ("access_denied", flow.state)
    again = consent(
        ada_client,
        request_id,
        approve=True,
        scopes=["posts:read"],
        workspaceId=str(ada.personal_workspace.pk),
    )
    assert again.status_code == 410
    assert ada_client.get(f"/api/oauth/requests/{request_id}").status_code == 410
    assert not AgentConnection.objects.exists()
    assert not Grant.objects.exists()


def test_consent_grants_no_scope_beyond_those_asked_nor_in_anothers_workspace(
    flow, ada, ada_client, bob
):
    request_id = flow.request_id(flow.authorize(scope="posts:read"))
    beyond = consent(
        ada_client,
        request_id,
        approve=True,
        scopes=["posts:read", "posts:write"],
        workspaceId=str(ada.personal_workspace.pk),
    )
    assert beyond.status_code == 400
    assert "scopes" in beyond.json()["error"]["details"]
    elsewhere = consent(
        ada_client,
        request_id,
        approve=True,
        scopes=["posts:read"],
        workspaceId=str(bob.personal_workspace.pk),
    )
    assert elsewhere.status_code == 404
    assert not AgentConnection.objects.exists()
    assert not ApiKey.objects.exists()
    assert OAuthRequest.objects.get(pk=request_id).decided_at is None


def test_an_expired_request_is_gone(flow, ada_client):
    request_id = flow.request_id(flow.authorize())
    OAuthRequest.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert ada_client.get(f"/api/oauth/requests/{request_id}").status_code == 410


def test_an_approval_is_an_agent_connection_with_the_consented_scopes_and_policy(
    flow, ada, ada_client
):
    tokens = approved(
        flow,
        ada_client,
        ada,
        ["posts:read", "accounts:read"],
        policy={"autopublish": True, "maxPostsPerDay": 3},
    )
    assert tokens["token_type"] == "Bearer"
    assert tokens["expires_in"] == 3600
    assert tokens["scope"] == "posts:read accounts:read"
    agents = ada_client.get("/api/agents").json()["data"]
    assert len(agents) == 1
    agent = agents[0]
    assert (agent["kind"], agent["name"], agent["client"]) == ("oauth", "Claude", "Claude")
    assert agent["workspaceId"] == str(ada.personal_workspace.pk)
    assert agent["scopes"] == ["posts:read", "accounts:read"]
    assert agent["policy"] == {
        "autopublish": True,
        "maxPostsPerDay": 3,
        "creditBudgetPerDay": 20,
        "accountIds": None,
    }
    found = oauth_connection_for_token(token=tokens["access_token"])
    assert found is not None
    assert str(found[1].pk) == agent["id"]


# --- The token endpoint --------------------------------------------------------------------------


def _code(flow: Flow, api: Any, user: Any) -> str:
    request_id = flow.request_id(flow.authorize())
    decided = consent(
        api,
        request_id,
        approve=True,
        scopes=["posts:read"],
        workspaceId=str(user.personal_workspace.pk),
    )
    assert decided.status_code == 200, decided.content
    redirect = decided.json()["data"]["redirectUrl"]
    assert "code=" in redirect, redirect
    return query_of(redirect)["code"]


def test_a_wrong_verifier_is_invalid_grant(flow, ada, ada_client):
    code = _code(flow, ada_client, ada)
    wrong = flow.token(code, verifier="x" * 64)
    assert (wrong.status_code, wrong.json()["error"]) == (400, "invalid_grant")
    assert not AccessToken.objects.exists()


def test_a_code_is_used_once(flow, ada, ada_client):
    code = _code(flow, ada_client, ada)
    assert flow.token(code).status_code == 200
    again = flow.token(code)
    assert (again.status_code, again.json()["error"]) == (400, "invalid_grant")


def test_a_refresh_rotates_the_refresh_token_and_the_old_one_stops_working(flow, ada, ada_client):
    tokens = approved(flow, ada_client, ada, ["posts:read"])
    renewed = flow.refresh(tokens["refresh_token"])
    assert renewed.status_code == 200, renewed.content
    fresh = renewed.json()
    assert fresh["refresh_token"] != tokens["refresh_token"]
    assert fresh["access_token"] != tokens["access_token"]
    assert oauth_connection_for_token(token=tokens["access_token"]) is None
    connection = oauth_connection_for_token(token=fresh["access_token"])
    assert connection is not None
    replayed = flow.refresh(tokens["refresh_token"])
    assert (replayed.status_code, replayed.json()["error"]) == (400, "invalid_grant")


def test_revocation_ends_a_token_at_once(flow, ada, ada_client):
    tokens = approved(flow, ada_client, ada, ["posts:read"])
    assert flow.revoke(tokens["access_token"]).status_code == 200
    assert oauth_connection_for_token(token=tokens["access_token"]) is None
    assert flow.revoke(tokens["refresh_token"]).status_code == 200
    refused = flow.refresh(tokens["refresh_token"])
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant")


def test_deleting_the_agent_revokes_its_tokens_and_refresh_tokens(flow, ada, ada_client):
    tokens = approved(flow, ada_client, ada, ["posts:read"])
    agent_id = ada_client.get("/api/agents").json()["data"][0]["id"]
    assert ada_client.delete(f"/api/agents/{agent_id}").status_code == 200
    assert oauth_connection_for_token(token=tokens["access_token"]) is None
    assert not AccessToken.objects.exists()
    assert not RefreshToken.objects.filter(revoked__isnull=True).exists()
    refused = flow.refresh(tokens["refresh_token"])
    assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant")


def test_an_expired_access_token_is_no_way_in(flow, ada, ada_client):
    tokens = approved(flow, ada_client, ada, ["posts:read"])
    AccessToken.objects.update(expires=timezone.now() - timedelta(seconds=1))
    assert oauth_connection_for_token(token=tokens["access_token"]) is None


def _urls_reloaded() -> None:
    import config.urls
    from agents import urls

    importlib.reload(urls)
    importlib.reload(config.urls)
    clear_url_caches()


def test_the_oauth_endpoints_are_off_with_mcp(settings, ada_client):
    paths = ("/.well-known/oauth-authorization-server", "/oauth/register", "/oauth/token")
    settings.MCP_ENABLED = False
    try:
        _urls_reloaded()
        for path in paths:
            assert Client().post(path).status_code == 404, path
        assert ada_client.get(f"/api/oauth/requests/{uuid.uuid4()}").status_code == 404
    finally:
        settings.MCP_ENABLED = True
        _urls_reloaded()
    assert Client().post("/oauth/token").status_code == 400


def test_a_takeover_or_an_erasure_removes_the_users_oauth_rows(flow, ada, ada_client):
    from agents.oauth.services import oauth_forget

    approved(flow, ada_client, ada, ["posts:read"])
    assert oauth_forget(ada) == ["2 OAuth token and request row(s)"]
    assert not AccessToken.objects.exists()
    assert not RefreshToken.objects.exists()
    assert not OAuthRequest.objects.exists()


def test_the_daily_cleanup_forgets_ended_requests_expired_tokens_and_clients_never_used(
    flow, ada, ada_client
):
    tokens = approved(flow, ada_client, ada, ["posts:read"])
    waiting = flow.request_id(flow.authorize())  # ends in 10 minutes: kept
    flow.request_id(flow.authorize())  # never decided; it and the approved one ended 2 days ago
    OAuthRequest.objects.exclude(pk=waiting).update(expires_at=timezone.now() - timedelta(days=2))
    AccessToken.objects.update(expires=timezone.now() - timedelta(seconds=1))
    RefreshToken.objects.update(revoked=timezone.now() - timedelta(days=31))
    used = Application.objects.get()
    never_used = Flow(Client())
    assert never_used.register().status_code == 201
    Application.objects.update(created=timezone.now() - timedelta(days=31))

    assert oauth_purge_task.delay().get() == {"requests": 2, "clients": 1}

    assert list(OAuthRequest.objects.values_list("pk", flat=True)) == [uuid.UUID(waiting)]
    assert not AccessToken.objects.exists()
    assert not RefreshToken.objects.exists()
    assert list(Application.objects.all()) == [used]  # it had tokens: its grant stays known
    assert oauth_connection_for_token(token=tokens["access_token"]) is None
