"""A BOLA sweep over every URL pattern of the application (issue 42; workspaces.md sections 1
and 2): Ada owns an object of every kind whose id appears in a URL; Bob, signed in and acting
in his own workspace, calls every route with every method its view answers, naming Ada's
objects, and never gets a 2xx for them nor a byte of her data; naming her workspace in
`X-Workspace-Id` is 404 `workspace_not_found` on every route of a workspace's data. Bob's API
key is swept the same way. Ada's data is the same afterwards, row for row.

The sweep fails on a route it does not know: a URL parameter missing from `ID_KINDS` (or a
`pk` missing from `PK_KINDS`), or a (route, method) missing from `EXPECTED`; so a new route
cannot escape it. The social hub's routes take their requests from the hub's own sweep
(tests/social/test_workspace_scoping.py), Ada's hub from its fixture.
"""

import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.db import models
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient
from rest_framework.views import APIView

from accounts.api.scoping import WorkspaceScoped
from accounts.models import ApiKey, Membership, User, Workspace
from accounts.scopes import Scope, key_scope
from accounts.selectors import membership_get
from accounts.services.invitations import invitation_accept, invitation_create
from accounts.services.sessions import session_issue
from accounts.services.users import user_set_password
from accounts.services.workspaces import workspace_create
from notifications.models import OutboxEvent
from notifications.services.center import notify
from social.api.scoping import workspace_action
from social.models import Post
from tests.aitools.conftest import BODIES
from tests.factories import UserFactory, api_key_for
from tests.social.standins import provider_standins
from tests.social.test_workspace_scoping import A_SECRETS, later
from tests.social.test_workspace_scoping import SWEEP as SOCIAL_SWEEP
from tests.social.test_workspace_scoping import ada_hub as ada_hub  # a fixture, used below

pytestmark = pytest.mark.django_db

# --- Ada's objects -------------------------------------------------------------------------------

ADA_SHARED = "Ada's clients"
ADA_HOOK = "https://127.0.0.1/ada-hook"
ADA_NOTE = "Ada's private note"
CAROL, DAVE = "carol.sweep@example.com", "dave.sweep@example.com"  # her editor, her invitee
SECRETS = (*A_SECRETS, ADA_SHARED, ADA_HOOK, ADA_NOTE, CAROL, DAVE)


@dataclass
class World:
    """Ada (with her personal hub, made by the hub sweep's fixture), her shared workspace with
    Carol as its editor, and what the factories below add; `ids` by kind, each a list (the
    first one is named in request bodies)."""

    ada: User
    hub: dict[str, Any]
    client: APIClient
    shared: Workspace
    ids: dict[str, list[str]] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)  # refresh token, consent state, event


def make_workspaces(world: World) -> list[str]:
    # Her shared one first: the personal one's refusals (409 personal_workspace) come after
    # the membership check, and both must be 404 to a stranger.
    return [str(world.shared.pk), str(world.ada.personal_workspace.pk)]


def make_members(world: World) -> list[str]:
    carol = UserFactory.create(email=CAROL, full_name="Carol")
    _, url = invitation_create(actor=owner_of(world), email=carol.email, role="editor")
    invitation_accept(user=carol, token=url.split("token=", 1)[1])
    return [str(world.ada.pk), str(carol.pk)]


def make_invitations(world: World) -> list[str]:
    invitation, _ = invitation_create(actor=owner_of(world), email=DAVE, role="viewer")
    return [str(invitation.pk)]


def make_api_keys(world: World) -> list[str]:
    api_key_for(world.ada, "posts:read", name="Ada's personal key")
    api_key_for(world.ada, "posts:read", name="Ada's client key", workspace=world.shared)
    return [str(pk) for pk in ApiKey.objects.filter(user=world.ada).values_list("pk", flat=True)]


def make_agents(world: World) -> list[str]:
    from agents.services import agent_connection_for_key

    keys = ApiKey.objects.filter(user=world.ada)
    return [str(agent_connection_for_key(key=key).pk) for key in keys]


def make_oauth_requests(world: World) -> list[str]:
    """A client's authorization request waiting for Ada's consent, opened (claimed) by her."""
    from django.test import Client

    from tests.agents.oauth_flow import Flow

    flow = Flow(Client())
    assert flow.register().status_code == 201
    request_id = flow.request_id(flow.authorize())
    assert world.client.get(f"/api/oauth/requests/{request_id}").status_code == 200
    return [request_id]


def make_webhook_endpoints(world: World) -> list[str]:
    made = world.client.post(
        "/api/webhooks/endpoints", {"url": ADA_HOOK, "events": ["credits.depleted"]}, format="json"
    )
    assert made.status_code == 200, made.content
    return [made.json()["data"]["id"]]


def make_webhook_deliveries(world: World) -> list[str]:
    endpoint = world.ids["endpoint_id"][0]
    tested = world.client.post(f"/api/webhooks/endpoints/{endpoint}/test")
    assert tested.status_code == 202, tested.content
    return [tested.json()["data"]["deliveryId"]]


def make_notifications(world: World) -> list[str]:
    note = notify(user=world.ada, type="system_alert", title=ADA_NOTE, message=ADA_NOTE)
    return [str(note.pk)]


def generated(world: World, tool: str) -> dict[str, Any]:
    response = world.client.post(*BODIES[tool])
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def make_generations(world: World) -> list[str]:
    listed = world.client.get("/api/history").json()["data"]
    return [entry["id"] for entry in listed]  # the gig's and the proposal's, made below


def make_gigs(world: World) -> list[str]:
    return [generated(world, "gig_generate")["id"]]


def make_proposals(world: World) -> list[str]:
    return [generated(world, "proposal_generate")["id"]]


def make_approval_requests(world: World) -> list[str]:
    asked = world.client.post(
        f"/api/social/posts/{world.hub['post_id']}/approval-requests",
        {"clientEmails": ["client@ada.example"], "message": ADA_NOTE},
        format="json",
    )
    assert asked.status_code == 200, asked.content
    return [asked.json()["data"]["id"]]


def make_share_links(world: World) -> list[str]:
    made = world.client.post(
        f"/api/workspaces/{world.shared.pk}/share-links", {"kind": "calendar"}, format="json"
    )
    assert made.status_code == 200, made.content
    return [made.json()["data"]["id"]]


def from_hub(name: str) -> Callable[[World], list[str]]:
    return lambda world: [world.hub[name]]


# Every URL parameter that names an object, and the factory of Ada's objects of that kind.
# The order is the order of making (a delivery needs its endpoint; the history, the gig and
# the proposal). A parameter missing here fails the sweep.
FACTORIES: dict[str, Callable[[World], list[str]]] = {
    "workspace_id": make_workspaces,
    "user_id": make_members,
    "invitation_id": make_invitations,
    "key_id": make_api_keys,
    "agent_id": make_agents,
    "oauth_request_id": make_oauth_requests,
    "endpoint_id": make_webhook_endpoints,
    "delivery_id": make_webhook_deliveries,
    "notification_id": make_notifications,
    "gig_id": make_gigs,
    "proposal_id": make_proposals,
    "generation_id": make_generations,
    "account_id": from_hub("account_id"),
    "post_id": from_hub("post_id"),
    "record_id": from_hub("record_id"),
    "campaign_id": from_hub("campaign_id"),
    "media_id": from_hub("media_id"),
    "request_id": make_approval_requests,
    "link_id": make_share_links,
}
# URL parameter -> the kind of object it names: its own name, or for `pk` the route's kind.
ID_KINDS = {name: name for name in FACTORIES} | {"pk": "by route: PK_KINDS"}
PK_KINDS = {
    "notifications-detail": "notification_id",
    "notifications-read": "notification_id",
    "history-detail": "generation_id",
    "gig-detail": "gig_id",
    "proposal-detail": "proposal_id",
}
# URL parameters that name no object of anyone's: what Bob sends there.
# A client's approval link, a share link, is its own key (whoever holds it may use it): Bob
# makes one up.
NOT_IDS = {"provider": "linkedin", "token": "a-made-up-token-0123456789abcdef"}


def owner_of(world: World) -> Membership:
    return membership_get(user=world.ada, workspace_id=world.shared.pk)


@pytest.fixture
def providers(settings) -> Any:
    with provider_standins() as started:
        for name, value in started.settings().items():
            setattr(settings, name, value)
        yield started


@pytest.fixture
def world(ada, ada_hub, settings, tmp_path) -> World:
    settings.MEDIA_ROOT = str(tmp_path)
    session = session_issue(user=ada)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {session.token}")
    made = World(
        ada=ada,
        hub=ada_hub,
        client=client,
        shared=workspace_create(user=ada, name=ADA_SHARED).workspace,
    )
    for kind, factory in FACTORIES.items():
        made.ids[kind] = factory(made)
        assert made.ids[kind], f"no object of Ada's of kind {kind}"
    events = OutboxEvent.objects.filter(user=ada, live_id__isnull=False)
    event = events.values_list("id", flat=True).first()  # as a webhook's webhook-id names it
    assert event is not None, "Ada has no event to name"
    made.extra = {
        "refresh_token": session.refresh_token,
        "state": ada_hub["state"],
        "event_id": str(event),
    }
    return made


@dataclass
class Bob:
    user: User
    shared: Workspace  # a workspace of his own, where he is the owner, to name in paths
    key: str  # his API key: every scope, bound to his personal workspace

    def client(self, workspace: Any = None) -> APIClient:
        """Signed in (a session), acting in `workspace` (an id; None: his personal one)."""
        client = APIClient()
        client.credentials(
            HTTP_AUTHORIZATION=f"Bearer {session_issue(user=self.user).token}",
            HTTP_X_WORKSPACE_ID=str(workspace or self.user.personal_workspace.pk),
        )
        return client

    def key_client(self, workspace: Any = None) -> APIClient:
        """His API key, naming `workspace` in `X-Workspace-Id` (None: no header)."""
        client = APIClient()
        headers = {"HTTP_X_WORKSPACE_ID": str(workspace)} if workspace is not None else {}
        client.credentials(HTTP_X_API_KEY=self.key, **headers)
        return client


@pytest.fixture
def intruder(bob) -> Bob:
    # With a password, erasing his account takes it: the sweep's wrong one keeps him.
    user_set_password(user=bob, password="bob-s3cret-password")
    shared = workspace_create(user=bob, name="Bob's studio").workspace
    return Bob(user=bob, shared=shared, key=api_key_for(bob, *Scope.values))


# --- The routes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    route: str  # "/api/social/posts/<uuid:post_id>"
    name: str
    view: Any  # the view class; None for a function view

    @property
    def params(self) -> list[str]:
        return re.findall(r"<(?:\w+:)?(\w+)>", self.route)

    @property
    def methods(self) -> list[str]:
        """The HTTP methods the view answers (HEAD and OPTIONS: as GET, and no data)."""
        return [m for m in ("get", "post", "put", "patch", "delete") if hasattr(self.view, m)]


def all_routes() -> list[Route]:
    """Every URL pattern of the application, as Django resolves them."""
    found: list[Route] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                view = getattr(pattern.callback, "cls", None) or getattr(
                    pattern.callback, "view_class", None
                )
                found.append(Route(prefix + str(pattern.pattern), str(pattern.name), view))

    walk(get_resolver().url_patterns, "/")
    return found


def api_routes() -> list[Route]:
    """The API's views under /api/ and /api/v1/ (the same views: asserted in
    test_every_api_v1_route_is_an_alias)."""
    return [r for r in all_routes() if r.route.startswith("/api/") and r.view is not None]


# Routes outside the API: the admin (swept in its own test) and these, each with the reason it
# holds nothing of anyone's to name. A route outside /api matching none fails the sweep.
OUTSIDE_API = {
    r"^/\^media/": "uploaded files, by the unguessable names the networks fetch them at "
    "(social/{user}/{uuid}.{ext}: docs/social.md, Media); no API data",
    r"^/admin/": "the Django admin: staff only, through its own login (test_the_admin_...)",
    r"^/metrics$": "Prometheus text for a Bearer of METRICS_TOKEN, no user's data",
    r"^/\^api\(": "the JSON 404 of any other path under /api",
    r"^/api/v1/health$": "the health check's v1 shape (no data)",
    r"^/\.well-known/oauth-(protected-resource(/mcp)?|authorization-server)$": "the OAuth "
    "discovery documents: public, the same for everyone",
    r"^/oauth/(register|authorize|token|revoke)$": "the OAuth protocol endpoints: a client's "
    "registration, an authorization request (kept for consent by the signed-in user: "
    "oauth-request), codes and tokens that are their own proof; no user's data by id",
}


# --- What Bob sends, and what he must get --------------------------------------------------------

# Per (route name, method): the body (placeholders "{kind}" are Ada's first id of that kind,
# "{later}" a time to come, "{refresh_token}", "{state}", "{event_id}" hers) and the statuses
# Bob may get. A route naming one of Ada's objects in its path may only be refused (404: never
# a hint). A (route, method) missing here fails the sweep. The hub's come from its own sweep.
NOT_FOUND = {404}
EXPECTED: dict[tuple[str, str], tuple[dict[str, Any] | None, set[int]]] = {
    # Public, or about the caller alone.
    ("health", "get"): (None, {200}),
    ("schema", "get"): (None, {200}),
    ("swagger-ui", "get"): (None, {200}),
    # Signed in, the body's e-mail must be his own: 409 for any other, hers or no one's.
    ("auth-login", "post"): ({"email": "ada@example.com", "password": "not-hers"}, {409}),
    ("auth-magic-link", "post"): ({"email": "nobody@example.com"}, {200}),
    ("auth-magic-verify", "post"): ({"token": "{invitation_id}"}, {400, 401}),
    ("auth-refresh", "post"): ({"refreshToken": "not-a-token"}, {401}),
    ("auth-logout", "post"): ({"refreshToken": "{refresh_token}"}, {400}),  # hers: not his
    ("auth-me", "get"): (None, {200}),
    ("auth-me", "patch"): ({"fullName": "Bob B"}, {200}),
    ("auth-me", "delete"): ({"password": "not-his"}, {401}),  # he has one: the sweep goes on
    # API keys: the request's workspace's.
    ("auth-api-keys", "get"): (None, {200}),
    ("auth-api-keys", "post"): (
        {"name": "Bob's", "scopes": ["posts:read"], "workspaceId": "{workspace_id}"},
        NOT_FOUND,
    ),
    ("auth-api-key", "delete"): (None, NOT_FOUND),
    # Agent connections: the caller's own, in every workspace.
    ("agents", "get"): (None, {200}),
    ("agent", "patch"): ({"policy": {"autopublish": True}}, NOT_FOUND),
    ("agent", "delete"): (None, NOT_FOUND),
    # An OAuth client's authorization request: the user who opened it decides, once.
    ("oauth-request", "get"): (None, NOT_FOUND),
    ("oauth-request", "post"): (
        {"approve": True, "scopes": ["posts:read"], "workspaceId": "{workspace_id}"},
        NOT_FOUND,
    ),
    # Workspaces, members, invitations: by membership.
    ("workspaces", "get"): (None, {200}),
    ("workspaces", "post"): ({"name": "Bob's second"}, {200}),
    ("workspace", "patch"): ({"name": "Hijacked"}, NOT_FOUND),
    ("workspace", "delete"): (None, NOT_FOUND),
    ("workspace-activity", "get"): (None, NOT_FOUND),
    ("workspace-members", "get"): (None, NOT_FOUND),
    ("workspace-member", "patch"): ({"role": "viewer"}, NOT_FOUND),
    ("workspace-member", "delete"): (None, NOT_FOUND),
    ("workspace-invitations", "get"): (None, NOT_FOUND),
    ("workspace-invitations", "post"): ({"email": "eve@example.com", "role": "owner"}, NOT_FOUND),
    ("workspace-invitation", "delete"): (None, NOT_FOUND),
    ("invitation-accept", "post"): ({"token": "{invitation_id}"}, {400}),
    # Approvals: a member of the request's workspace decides; a made-up link finds nothing.
    ("approval-decision", "post"): ({"decision": "approve"}, NOT_FOUND),
    ("public-approval", "get"): (None, NOT_FOUND),
    ("public-approval-decision", "post"): ({"decision": "approve"}, NOT_FOUND),
    ("public-approval-comments", "post"): ({"body": "Hijacked"}, NOT_FOUND),
    # Share links and the report: by membership; a made-up link opens nothing.
    ("workspace-share-links", "get"): (None, NOT_FOUND),
    ("workspace-share-links", "post"): ({"kind": "report"}, NOT_FOUND),
    ("workspace-share-link", "delete"): (None, NOT_FOUND),
    ("workspace-report", "get"): ({"format": "csv"}, NOT_FOUND),
    ("public-calendar", "get"): (None, NOT_FOUND),
    ("public-calendar-feed", "get"): (None, NOT_FOUND),
    ("public-report", "get"): ({"format": "pdf"}, NOT_FOUND),
    # Events, notifications: the user's.
    ("events-replay", "get"): ({"after": "{event_id}"}, {400}),
    ("events-ticket", "post"): (None, {200}),
    ("events-stream", "get"): (None, {501}),  # the ASGI server's: not under the test client
    ("notifications-list", "get"): (None, {200}),
    ("notifications-unread", "get"): (None, {200}),
    ("notifications-read-all", "post"): (None, {200}),
    ("notifications-detail", "delete"): (None, NOT_FOUND),
    ("notifications-read", "post"): (None, NOT_FOUND),
    # Webhooks: the request's workspace's.
    ("webhook-endpoints", "get"): (None, {200}),
    ("webhook-endpoints", "post"): (
        {"url": "https://127.0.0.1/bob-hook", "events": ["credits.depleted"]},
        {200},
    ),
    ("webhook-endpoint", "get"): (None, NOT_FOUND),
    ("webhook-endpoint", "patch"): ({"url": "https://127.0.0.1/hijacked"}, NOT_FOUND),
    ("webhook-endpoint", "delete"): (None, NOT_FOUND),
    ("webhook-endpoint-rotate", "post"): (None, NOT_FOUND),
    ("webhook-endpoint-test", "post"): (None, NOT_FOUND),
    ("webhook-deliveries", "get"): ({"endpointId": "{endpoint_id}"}, {200}),
    ("webhook-delivery", "get"): (None, NOT_FOUND),
    ("webhook-delivery-redeliver", "post"): (None, NOT_FOUND),
    # Credits and billing: the user's; the payment provider's webhook is signed.
    ("credit-transactions", "get"): (None, {200}),
    ("payment-webhook", "post"): (
        {"event": "payment.captured", "payload": {"notes": {"user_id": "{user_id}"}}},
        {400, 401},
    ),
    # The AI tools and what they wrote: the user's.
    **{(f"ai-{tool}", "post"): ({}, {400}) for tool in BODIES},
    ("history-list", "get"): (None, {200}),
    ("history-detail", "get"): (None, NOT_FOUND),
    ("gig-list", "get"): (None, {200}),
    ("gig-detail", "get"): (None, NOT_FOUND),
    ("gig-detail", "patch"): ({"title": "Hijacked"}, NOT_FOUND),
    ("gig-detail", "delete"): (None, NOT_FOUND),
    ("proposal-list", "get"): (None, {200}),
    ("proposal-detail", "get"): (None, NOT_FOUND),
    ("proposal-detail", "patch"): ({"content": "Hijacked"}, NOT_FOUND),
    ("proposal-detail", "delete"): (None, NOT_FOUND),
    # The social hub: its own sweep's requests and answers.
    **SOCIAL_SWEEP,
}

# The (route, method)s of a workspace's data, picked by `X-Workspace-Id`: the hub's (they
# declare their action), the webhooks' and the API keys'.
WORKSPACE_SCOPED = {
    key for key in EXPECTED if key[0].startswith(("social-", "webhook-", "auth-api-key"))
} - {("social-platforms", "get"), ("social-scheduler", "post")}


def kind_of(route: Route, param: str) -> str:
    assert param in ID_KINDS or param in NOT_IDS, (
        f"{route.route}: URL parameter <{param}> names a kind of object the BOLA sweep does "
        "not know; add its factory to FACTORIES (tests/test_bola_sweep.py)"
    )
    if param != "pk":
        return param
    assert route.name in PK_KINDS, (
        f"{route.route} ({route.name}): which kind of object its <pk> names is not in PK_KINDS "
        "(tests/test_bola_sweep.py)"
    )
    return PK_KINDS[route.name]


def paths_of(route: Route, world: World, bob: Bob) -> Iterator[str]:
    """The route's paths naming Ada's objects: each combination of her ids, and, where a
    workspace holds the object, Bob's own workspace with her object (the inner id alone hers)."""
    params = route.params
    choices = []
    for param in params:
        if param in NOT_IDS:
            choices.append([NOT_IDS[param]])
            continue
        ids = list(world.ids[kind_of(route, param)])
        if param == "workspace_id" and len(params) > 1:
            ids.append(str(bob.shared.pk))
        choices.append(ids)
    for combination in itertools.product(*choices):
        path = route.route
        for param, value in zip(params, combination, strict=True):
            path = re.sub(rf"<(?:\w+:)?{param}>", value, path)
        yield path


def names_ada(route: Route) -> bool:
    return any(param not in NOT_IDS for param in route.params)


def filled(value: Any, world: World) -> Any:
    if isinstance(value, dict):
        return {key: filled(item, world) for key, item in value.items()}
    if isinstance(value, list):
        return [filled(item, world) for item in value]
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        name = value[1:-1]
        if name == "later":
            return later(48)
        return world.extra[name] if name in world.extra else world.ids[name][0]
    return value


def call(client: APIClient, method: str, path: str, body: Any) -> Any:
    return getattr(client, method)(path, body, format=None if method == "get" else "json")


def assert_no_leak(response: Any, where: str, world: World, named: bool) -> None:
    """Never a 2xx for a path naming Ada's object; never her data in any answer; an answer of
    his own (2xx) holds none of her ids."""
    if named:
        assert response.status_code >= 400, (where, response.status_code, response.content)
    text = response.content.decode(errors="replace")
    leaked = [secret for secret in SECRETS if secret in text]
    assert not leaked, (where, leaked)
    if response.status_code < 300:
        ids = [value for values in world.ids.values() for value in values]
        ids.append(world.extra["event_id"])
        assert not [value for value in ids if value in text], (where, text[:500])


def not_a_member(response: Any, where: str) -> None:
    assert response.status_code == 404, (where, response.status_code, response.content)
    assert response.json()["error"]["code"] == "workspace_not_found", where


# --- What Ada has ---------------------------------------------------------------------------------

# How each model's rows are Ada's: the first lookup a model has.
OWNERSHIP = ("workspace", "user", "account__workspace", "endpoint__workspace",
             "delivery__workspace", "post__workspace")  # fmt: skip


def ada_rows(world: World) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every model that is Ada's (by her workspaces or by her), and her user row."""
    workspaces = [world.shared.pk, world.ada.personal_workspace.pk]
    rows: dict[str, list[tuple[Any, ...]]] = {}
    for model in apps.get_models():
        lookup = next((path for path in OWNERSHIP if has_path(model, path)), None)
        if lookup is None:
            continue
        target = f"{lookup}__in" if lookup.endswith("workspace") else lookup
        value = workspaces if lookup.endswith("workspace") else world.ada
        found = model._default_manager.filter(**{target: value}).order_by("pk")
        rows[model._meta.label] = [tuple(row.values()) for row in found.values()]
    rows["accounts.User"] = list(User.objects.filter(pk=world.ada.pk).values_list())
    return rows


def has_path(model: type[models.Model], path: str) -> bool:
    """Whether `path` follows the model's own foreign keys (never a reverse relation)."""
    for part in path.split("__"):
        try:
            field_ = model._meta.get_field(part)
        except FieldDoesNotExist:
            return False
        if not (field_.many_to_one or field_.one_to_one) or not field_.concrete:
            return False
        model = field_.related_model  # type: ignore[assignment]
    return True


# --- The sweeps -----------------------------------------------------------------------------------

# Judges one answer: (route, method, where (the request, for messages), response).
Check = Callable[[Route, str, str, Any], None]


def sweep(world: World, bob: Bob, caller: APIClient, check: Check, note: str = "") -> int:
    """Every (route, method) of the API, each path naming Ada's objects, sent by `caller`;
    `check` judges each answer. How many requests."""
    calls = 0
    for route in api_routes():
        if route.route.startswith("/api/v1/"):
            continue  # the same views: test_every_api_v1_route_is_an_alias
        for method in route.methods:
            assert (route.name, method) in EXPECTED, (
                f"{method.upper()} {route.route} ({route.name}) is not in the BOLA sweep: add "
                "what Bob sends and may get to EXPECTED (tests/test_bola_sweep.py)"
            )
            body, _ = EXPECTED[route.name, method]
            data = filled(body, world) if body is not None else None
            for path in paths_of(route, world, bob):
                where = f"{note}{method.upper()} {path}"
                check(route, method, where, call(caller, method, path, data))
                calls += 1
    return calls


def answered_as_expected(world: World) -> Check:
    """The answer EXPECTED allows, nothing of Ada's in it."""

    def check(route: Route, method: str, where: str, response: Any) -> None:
        _, allowed = EXPECTED[route.name, method]
        assert response.status_code in allowed, (where, response.status_code, response.content)
        assert_no_leak(response, where, world, names_ada(route))

    return check


def key_answered_as_expected(world: World) -> Check:
    """For a key: a view closed to keys refuses it, whatever the path; others as EXPECTED."""
    expected = answered_as_expected(world)

    def check(route: Route, method: str, where: str, response: Any) -> None:
        if keys_refused(route.view, method):
            assert response.status_code in (401, 403), (where, response.content)
            assert_no_leak(response, where, world, names_ada(route))
        else:
            expected(route, method, where, response)

    return check


def workspace_not_found(world: World) -> Check:
    """Naming a workspace the caller is not a member of: 404 `workspace_not_found` on every
    route of a workspace's data; the others answer nothing of Ada's."""

    def check(route: Route, method: str, where: str, response: Any) -> None:
        if (route.name, method) in WORKSPACE_SCOPED:
            not_a_member(response, where)
        assert_no_leak(response, where, world, names_ada(route))

    return check


def key_bound_elsewhere(world: World) -> Check:
    """A key naming another workspace than its own: 403 on every route of a workspace's data
    (`permission_denied`, the same whichever workspace is named); nothing of Ada's anywhere."""

    def check(route: Route, method: str, where: str, response: Any) -> None:
        if (route.name, method) in WORKSPACE_SCOPED:
            assert response.status_code == 403, (where, response.content)
            if not keys_refused(route.view, method):
                assert response.json()["error"]["code"] == "permission_denied", where
        assert_no_leak(response, where, world, names_ada(route))

    return check


# Bob's own new objects naming Ada's in their bodies (ids of hers he has learnt): refused
# as no object of his (400 naming the field), never attached to his.
MEDIA, ACCOUNTS = {"mediaIds": ["{media_id}"]}, {"accountIds": ["{account_id}"]}
REFERENCES: list[tuple[str, dict[str, Any]]] = [
    ("/api/social/posts", {"content": "Bob's", "campaignId": "{campaign_id}"}),
    ("/api/social/posts", {"content": "Bob's", **MEDIA}),
    ("/api/social/posts", {"content": "Bob's", "variants": {"bluesky": MEDIA}}),
    ("/api/social/posts", {"content": "Bob's", "thread": [{"content": "2", **MEDIA}]}),
    ("/api/social/preview", {"content": "Bob's", "platforms": ["bluesky"], **MEDIA}),
    ("/api/social/preview", {"content": "Bob's", **ACCOUNTS}),
    ("/api/social/schedule", {"content": "Bob's", **MEDIA, **ACCOUNTS, "scheduledTime": "{later}"}),
    ("/api/social/publish", {"content": "Bob's", **MEDIA, **ACCOUNTS}),
    ("/api/social/queue", {"content": "Bob's", **MEDIA, **ACCOUNTS}),
]


def keys_refused(view: Any, method: str) -> bool:
    """A view that authenticates and opens no method to API keys (accounts.scopes)."""
    authenticates = issubclass(view, APIView) and bool(view.authentication_classes)
    return authenticates and key_scope(view, method) is None


def test_bob_naming_adas_objects_on_every_route_reaches_none_of_them(world, intruder):
    before = ada_rows(world)

    assert sweep(world, intruder, intruder.client(), answered_as_expected(world)) > 100

    assert ada_rows(world) == before


def test_bobs_new_objects_cannot_name_adas(world, intruder):
    before = ada_rows(world)
    caller = intruder.client()

    for path, body in REFERENCES:
        response = call(caller, "post", path, filled(body, world))
        where = f"POST {path} {body}"
        assert response.status_code == 400, (where, response.status_code, response.content)
        assert_no_leak(response, where, world, named=True)

    assert not Post.objects.filter(workspace=intruder.user.personal_workspace).exists()
    assert ada_rows(world) == before


def test_bob_naming_adas_workspace_is_not_found_on_every_route_of_a_workspace(world, intruder):
    """Bob names each of Ada's workspaces in `X-Workspace-Id`."""
    before = ada_rows(world)

    for workspace in world.ids["workspace_id"]:
        caller = intruder.client(workspace)
        sweep(world, intruder, caller, workspace_not_found(world), f"in {workspace}: ")

    assert ada_rows(world) == before


def test_bobs_api_key_naming_adas_objects_or_workspace_reaches_none_of_them(world, intruder):
    """Bob's key (every scope, bound to his personal workspace) names Ada's objects, then her
    workspaces."""
    before = ada_rows(world)
    assert intruder.key_client().get("/api/auth/me").status_code == 200  # the key works

    sweep(world, intruder, intruder.key_client(), key_answered_as_expected(world), "key: ")
    for workspace in world.ids["workspace_id"]:
        caller = intruder.key_client(workspace)
        sweep(world, intruder, caller, key_bound_elsewhere(world), f"key in {workspace}: ")

    assert ada_rows(world) == before


def test_every_route_is_known_to_the_sweep():
    """Every URL pattern is the API's (in EXPECTED, each URL parameter of a known kind) or
    one of the few outside it; every view of a workspace's data is in WORKSPACE_SCOPED."""
    walked = set()
    for route in all_routes():
        if not route.route.startswith("/api/") or route.view is None:
            reasons = [reason for pattern, reason in OUTSIDE_API.items()
                       if re.match(pattern, route.route)]  # fmt: skip
            assert reasons, f"{route.route} ({route.name}): not in the BOLA sweep (OUTSIDE_API)"
            continue
        if route.route == "/api/v1/health":
            continue
        for param in route.params:
            kind_of(route, param)
        for method in route.methods:
            assert (route.name, method) in EXPECTED, f"{method.upper()} {route.route}"
            walked.add((route.name, method))
            scoped = workspace_action(route.view, method) is not None or issubclass(
                route.view, WorkspaceScoped
            )
            if scoped:
                assert (route.name, method) in WORKSPACE_SCOPED, route.route
    assert walked == set(EXPECTED), set(EXPECTED) - walked  # every entry is a live route


def test_every_api_v1_route_is_an_alias():
    """Every path also answers under /api/v1 (workspaces.md): the same view and name as under
    /api, so sweeping /api sweeps both."""
    routes = {(r.route, r.name): r.view for r in api_routes()}
    v1 = {key: view for key, view in routes.items() if key[0].startswith("/api/v1/")}
    plain = {key: view for key, view in routes.items() if not key[0].startswith("/api/v1/")}
    for unversioned in ("/api/schema/", "/api/docs/"):  # the schema and its docs, once
        plain = {key: view for key, view in plain.items() if key[0] != unversioned}
    aliases = {("/api/" + route.removeprefix("/api/v1/"), name): view
               for (route, name), view in v1.items() if name != "health-v1"}  # fmt: skip
    assert aliases == plain


def test_the_admin_refuses_a_signed_in_user_who_is_not_staff(world, intruder):
    """Every admin page, naming Ada's workspace as the object: Bob, signed in to the site but
    not staff, is sent to the admin's login; nothing of Ada's is shown."""
    browser = Client()
    browser.force_login(intruder.user)
    values = {"object_id": str(world.shared.pk), "content_type_id": "1", "app_label": "accounts",
              "url": "nothing-here"}  # fmt: skip
    admin = [r for r in all_routes() if r.route.startswith("/admin/")]
    admin.sort(key=lambda r: r.name == "logout")  # his session ends last
    for route in admin:
        path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: values[m[1]], route.route)
        path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: values[m[1]], path)
        path = path.replace("^", "").replace("$", "")
        for method in ("get", "post"):
            response = getattr(browser, method)(path)
            where = f"{method.upper()} {path}"
            if route.name in ("login", "logout"):
                assert response.status_code in (200, 302, 405), where
            else:
                assert response.status_code == 302, (where, response.status_code)
                assert response["Location"].startswith("/admin/login/"), where
            text = response.content.decode(errors="replace")
            assert not [secret for secret in SECRETS if secret in text], where


def test_a_route_naming_an_unknown_kind_of_object_fails_the_sweep():
    """The guard itself: a new route whose id the sweep cannot make is a failure, not a pass."""
    thing = Route("/api/things/<uuid:thing_id>", "thing", APIView)
    with pytest.raises(AssertionError, match="names a kind of object the BOLA sweep does not"):
        kind_of(thing, "thing_id")
    other = Route("/api/things/<uuid:pk>", "thing", APIView)
    with pytest.raises(AssertionError, match="not in PK_KINDS"):
        kind_of(other, "pk")
