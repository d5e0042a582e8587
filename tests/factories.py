"""Test helpers shared by every test package: users made as real ones are, and clients acting
as a given user."""

from collections.abc import Mapping
from typing import Any

import factory
from rest_framework.test import APIClient

from accounts.models import User, Workspace
from accounts.services.sessions import session_issue
from accounts.services.users import user_create


class UserFactory(factory.django.DjangoModelFactory[User]):
    """A user made by `user_create`, so the registered hooks (billing's starting credits) run
    as they do for every real user: `UserFactory.create(email=..., password=..., full_name=...)`."""

    class Meta:
        model = User

    # factory_boy's declarations are untyped; `UserFactory.create(...)` is typed (-> User).
    email = factory.declarations.Sequence(  # type: ignore[no-untyped-call]
        lambda n: f"user{n}@example.com"
    )
    password: str | None = None  # no usable password, as after a magic-link sign-up
    full_name = ""

    @classmethod
    def _create(cls, model_class: type[User], *args: Any, **kwargs: Any) -> User:
        return user_create(**kwargs)


def client_for(user: Any, **claims: Any) -> APIClient:
    """An API client signed in as `user` (a fresh session; `claims` as session_issue takes)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {session_issue(user=user, **claims).token}")
    return client


def api_key_for(
    user: Any, *scopes: str, name: str = "Automation", workspace: Workspace | None = None
) -> str:
    """A new API key of `user` with `scopes` (made as the API makes one), bound to `workspace`
    (default: the user's personal one); returns the key."""
    from accounts.selectors import membership_get
    from accounts.services.api_keys import api_key_create
    from accounts.services.workspaces import workspace_personal

    actor = (
        workspace_personal(user=user)
        if workspace is None
        else membership_get(user=user, workspace_id=workspace.pk)
    )
    return api_key_create(actor=actor, name=name, scopes=list(scopes))[1]


def client_with_key(key: str, *, header: str = "X-API-Key") -> APIClient:
    """An API client sending `key` in `X-API-Key`, or as `Authorization: Bearer` (header
    "Authorization")."""
    client = APIClient()
    if header == "Authorization":
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    else:
        client.credentials(HTTP_X_API_KEY=key)
    return client


def shared_workspace(
    owner: Any, *, name: str = "Acme Bakery", members: Mapping[Any, str] | None = None
) -> Workspace:
    """A shared workspace `owner` made, with `members` (user -> role) each joined by an
    invitation they accepted, as through the API."""
    from accounts.services.invitations import invitation_accept, invitation_create
    from accounts.services.workspaces import workspace_create

    actor = workspace_create(user=owner, name=name)
    for user, role in (members or {}).items():
        _, url = invitation_create(actor=actor, email=user.email, role=role)
        invitation_accept(user=user, token=url.split("token=", 1)[1])
    return actor.workspace
