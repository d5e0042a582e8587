"""Test helpers shared by every test package: clients acting as a given user."""

from typing import Any

from rest_framework.test import APIClient

from accounts.services.sessions import session_issue


def client_for(user: Any, **claims: Any) -> APIClient:
    """An API client signed in as `user` (a fresh session; `claims` as session_issue takes)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {session_issue(user=user, **claims).token}")
    return client
