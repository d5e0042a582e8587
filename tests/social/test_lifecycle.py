"""The daily upkeep of connected accounts: warnings before expiry (once each), expired
connections marked, sessions renewed where the platform allows, Mastodon limits refreshed."""

from datetime import timedelta

import pytest
from django.utils import timezone

from notifications.models import Notification
from social.models import ConnectState, SocialAccount, SocialSettings
from social.tasks import accounts_maintain_task
from tests.social.conftest import connect, consent

pytestmark = pytest.mark.django_db


def expiring(ada_client, provider: str, **extra) -> SocialAccount:
    response = connect(ada_client, provider, **extra)
    assert response.status_code == 200
    return SocialAccount.objects.get(pk=response.json()["data"]["id"])


def warnings() -> list[tuple[str, bool]]:
    return [
        (n.title, bool(n.metadata.get("expired")))
        for n in Notification.objects.filter(type="token_expiring").order_by("created_at")
    ]


def test_warned_seven_days_and_one_day_before_then_marked_expired(ada_client, providers):
    account = expiring(ada_client, "linkedin")
    SocialAccount.objects.filter(pk=account.pk).update(
        expires_at=timezone.now() + timedelta(days=6)
    )
    accounts_maintain_task.delay()
    accounts_maintain_task.delay()  # twice on a day: one warning
    assert warnings() == [("Reconnect LinkedIn soon", False)]
    SocialAccount.objects.filter(pk=account.pk).update(
        expires_at=timezone.now() + timedelta(hours=20)
    )
    accounts_maintain_task.delay()
    assert len(warnings()) == 2
    latest = Notification.objects.filter(type="token_expiring").order_by("-created_at")[0]
    assert "tomorrow" in latest.message
    SocialAccount.objects.filter(pk=account.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    result = accounts_maintain_task.delay().get()
    assert result["expired"] == 1
    account.refresh_from_db()
    assert account.status == "expired"
    assert warnings()[-1] == ("Reconnect LinkedIn", True)


def test_the_token_expiry_preference_silences_warnings(ada_client, ada, providers):
    account = expiring(ada_client, "linkedin")
    SocialSettings.objects.create(
        workspace=ada.personal_workspace, notification_preferences={"tokenExpiry": False}
    )
    SocialAccount.objects.filter(pk=account.pk).update(
        expires_at=timezone.now() + timedelta(days=3)
    )
    accounts_maintain_task.delay()
    assert warnings() == []


def test_a_bluesky_session_is_renewed_instead_of_warned(ada_client, providers):
    account = expiring(ada_client, "bluesky")
    assert account.expires_at is None  # renews itself: the connection has no end
    soon = timezone.now() + timedelta(days=5)  # the refresh token's 90 days nearly run out
    SocialAccount.objects.filter(pk=account.pk).update(credentials_expire_at=soon)
    result = accounts_maintain_task.delay().get()
    account.refresh_from_db()
    assert result["renewed"] == 1
    assert account.credentials_expire_at is not None
    assert account.credentials_expire_at > timezone.now() + timedelta(days=80)
    assert account.expires_at is None
    assert account.status == "connected"
    assert warnings() == []


def test_dead_credentials_that_could_not_be_renewed_mark_the_account_expired(ada_client, providers):
    account = expiring(ada_client, "bluesky")
    SocialAccount.objects.filter(pk=account.pk).update(
        credentials_expire_at=timezone.now() - timedelta(minutes=1)
    )
    assert accounts_maintain_task.delay().get()["expired"] == 1
    account.refresh_from_db()
    assert account.status == "expired"


def test_mastodon_limits_follow_the_instance_and_old_states_are_purged(ada_client, providers):
    account = expiring(ada_client, "mastodon", instance=providers.mastodon.url)
    providers.mastodon.max_characters = 5000
    consent(ada_client, "linkedin")
    ConnectState.objects.update(expires_at=timezone.now() - timedelta(days=2))
    result = accounts_maintain_task.delay().get()
    account.refresh_from_db()
    assert account.limits["maxCharacters"] == 5000
    assert result["limitsRefreshed"] == 1
    assert result["statesPurged"] == 2
    assert (
        ada_client.get("/api/social/accounts").json()["data"][0]["limits"]["maxCharacters"] == 5000
    )
