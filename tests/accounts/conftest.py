"""Account fixtures: a second, passwordless user, and one sign-in of Ada's with its client."""

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services.sessions import Session, session_issue
from tests.factories import UserFactory


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
