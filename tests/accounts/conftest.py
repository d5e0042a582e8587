"""Account fixtures: users and signed-in clients, made through the API or the services."""

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services.sessions import session_issue
from accounts.services.users import user_create


@pytest.fixture
def user(db) -> User:
    return user_create(email="ada@example.com", password="correct-horse", full_name="Ada")


@pytest.fixture
def passwordless_user(db) -> User:
    return user_create(email="grace@example.com")


@pytest.fixture
def session(user):
    return session_issue(user=user)


@pytest.fixture
def authed(session) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {session.token}")
    return client
