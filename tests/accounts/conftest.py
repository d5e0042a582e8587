"""Account fixtures: a second, passwordless user, one sign-in of Ada's with its client, and a
workspace of Ada's with a member of every role."""

from types import SimpleNamespace
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services.sessions import Session, session_issue
from tests.factories import UserFactory, client_for, shared_workspace


@pytest.fixture
def passwordless_user(db) -> User:
    return UserFactory.create(email="grace@example.com")


@pytest.fixture
def ada_session(ada_with_password) -> Session:
    """One sign-in of Ada's: its access and refresh tokens."""
    return session_issue(user=ada_with_password)


@pytest.fixture
def ada_session_client(ada_session) -> APIClient:
    """A client using `ada_session`'s access token (so logging it out ends this client)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {ada_session.token}")
    return client


@pytest.fixture
def team(ada) -> Any:
    """A shared workspace of Ada's ("Acme Bakery"), with one member of every other role:
    `team.workspace`, `team.users[role]` (Ada is `owner`) and `team.client(role)`."""
    users = {"owner": ada}
    for role in ("admin", "editor", "viewer", "client"):
        users[role] = UserFactory.create(email=f"{role}@example.com", full_name=role.title())
    workspace = shared_workspace(
        ada, members={users[role]: role for role in ("admin", "editor", "viewer", "client")}
    )
    return SimpleNamespace(
        workspace=workspace, users=users, client=lambda role: client_for(users[role])
    )
