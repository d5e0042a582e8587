"""API keys below HTTP: the once-a-minute last use, the 20-key limit under concurrency, what a
takeover and an erasure do to keys, the declarations' reading."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts import hooks
from accounts.errors import ApiKeyLimitReached
from accounts.models import ApiKey
from accounts.scopes import KEYS_REFUSED, key_scope
from accounts.services.api_keys import MAX_LIVE_KEYS, api_key_create, api_key_touch
from accounts.services.users import user_erase
from accounts.services.workspaces import workspace_personal
from tests.factories import UserFactory, api_key_for, client_with_key


def test_head_needs_what_get_needs_and_an_undeclared_view_refuses_keys():
    class Declared:
        api_key_scopes = {"GET": "posts:read"}

    assert (key_scope(Declared(), "head"), key_scope(Declared(), "POST")) == ("posts:read", None)
    assert key_scope(object(), "GET") is None
    assert dict(KEYS_REFUSED) == {}


@pytest.mark.django_db
def test_a_touch_writes_once_per_minute_whoever_races(ada):
    api_key_for(ada, "posts:read")
    now = timezone.now()
    # Two processes read the key before either wrote: both see it unused.
    first, second = ApiKey.objects.get(), ApiKey.objects.get()
    assert api_key_touch(key=first, now=now) is True
    assert api_key_touch(key=second, now=now + timedelta(seconds=1)) is False  # conditional
    assert ApiKey.objects.get().last_used_at == now
    assert api_key_touch(key=first, now=now + timedelta(seconds=30)) is False  # no query
    assert api_key_touch(key=first, now=now + timedelta(seconds=61)) is True


@pytest.mark.django_db
def test_takeover_revokes_and_erasure_removes_the_keys(ada):
    secret = api_key_for(ada, "posts:read")
    assert hooks.user_taken_over(ada).count("1 API key(s)") == 1
    assert client_with_key(secret).get("/api/social/posts").status_code == 401
    assert ApiKey.objects.filter(user=ada, revoked_at__isnull=False).count() == 1
    user_erase(user=ada)
    assert not ApiKey.objects.filter(user=ada).exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_creations_at_once_never_pass_the_limit():
    user = UserFactory.create(email="racer@example.com")
    actor = workspace_personal(user=user)
    for number in range(MAX_LIVE_KEYS - 1):
        api_key_create(actor=actor, name=f"key {number}", scopes=["posts:read"])
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def create() -> None:
        barrier.wait()
        try:
            api_key_create(actor=actor, name="last place", scopes=["posts:read"])
            outcomes.append("created")
        except ApiKeyLimitReached:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["created", "refused"]
    assert ApiKey.objects.filter(user=user).count() == MAX_LIVE_KEYS
