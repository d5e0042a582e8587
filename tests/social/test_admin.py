"""The social hub in the admin: accounts without their credentials, and reconnection."""

import pytest

from notifications.models import Notification
from social.models import MastodonApp, SocialAccount
from tests.social.conftest import connect
from tests.social.standins import DEVTO_KEY

pytestmark = pytest.mark.django_db


def test_account_pages_never_show_credentials(admin_client, ada_client, ada, providers):
    connect(ada_client, "devto")
    connect(ada_client, "mastodon", instance=providers.mastodon.url)
    account = SocialAccount.objects.get(provider="mastodon")
    pages = [
        admin_client.get("/admin/social/socialaccount/"),
        admin_client.get(f"/admin/social/socialaccount/{account.pk}/change/"),
        admin_client.get(
            f"/admin/social/socialaccount/{SocialAccount.objects.get(provider='devto').pk}/change/"
        ),
        admin_client.get(f"/admin/social/mastodonapp/{MastodonApp.objects.get().pk}/change/"),
        admin_client.get(f"/admin/accounts/user/{ada.pk}/change/"),
    ]
    secrets = (DEVTO_KEY, str(account.access_token), str(MastodonApp.objects.get().client_secret))
    for page in pages:
        assert page.status_code == 200
        html = page.content.decode()
        assert all(secret not in html for secret in secrets)
    assert "Social accounts" in pages[-1].content.decode()


def test_mark_for_reconnection(admin_client, ada_client, providers):
    connect(ada_client, "devto")
    account = SocialAccount.objects.get()
    response = admin_client.post(
        "/admin/social/socialaccount/",
        {"action": "mark_for_reconnection", "_selected_action": [str(account.pk)]},
        follow=True,
    )
    assert response.status_code == 200
    assert "1 account(s) marked for reconnection" in response.content.decode()
    account.refresh_from_db()
    assert account.status == "expired"
    assert Notification.objects.filter(type="token_expiring").count() == 1


def test_post_pages_show_records_with_their_attempts(
    admin_client, ada_client, providers, connect_all
):
    accounts = connect_all()
    providers.devto.fail = "busy"
    ada_client.post(
        "/api/social/publish",
        {"title": "T", "content": "Hello", "accountIds": [a["id"] for a in accounts.values()],
         "mediaUrls": [providers.image()]},
        format="json",
    )  # fmt: skip
    from social.models import Post, ScheduledRecord

    post = Post.objects.get()
    page = admin_client.get(f"/admin/social/post/{post.pk}/change/").content.decode()
    assert page.count("https://dev.to") == 0  # devto did not publish: its row has no URL
    assert "https://bsky.app/profile/" in page  # the others' links are there
    record = ScheduledRecord.objects.get(provider="devto")
    detail = admin_client.get(f"/admin/social/scheduledrecord/{record.pk}/change/")
    assert detail.status_code == 200
    html = detail.content.decode()
    assert "retry_scheduled" in html
    assert "The server is unavailable or busy (HTTP 429)." in html
    for path in ("post", "scheduledrecord", "campaign", "mediaitem", "analyticsrecord"):
        assert admin_client.get(f"/admin/social/{path}/").status_code == 200


def test_the_due_filter_lists_waiting_records_whose_time_has_come(admin_client, ada):
    from datetime import timedelta

    from django.utils import timezone

    from social.models import Post, ScheduledRecord, SocialAccount

    account = SocialAccount.objects.create(user=ada, workspace=ada.personal_workspace,
                                           provider="devto", provider_user_id="1",
                                           username="ada-due")  # fmt: skip
    post = Post.objects.create(user=ada, workspace=ada.personal_workspace, title="T", content="x")
    now = timezone.now()
    for offset, name in ((-60, "due"), (3600, "later")):
        ScheduledRecord.objects.create(user=ada, workspace=post.workspace,
                                       post=Post.objects.create(user=ada, workspace=post.workspace,
                                       title=name, content=name), account=account, provider="devto",
                                       scheduled_time=now + timedelta(seconds=offset),
                                       due_at=now + timedelta(seconds=offset))  # fmt: skip
    assert post.pk
    due = admin_client.get("/admin/social/scheduledrecord/?due=yes")
    assert due.status_code == 200
    assert due.context["cl"].result_count == 1
    later = admin_client.get("/admin/social/scheduledrecord/?due=no")
    assert later.context["cl"].result_count == 1


def test_the_records_list_shows_the_schedulers_lateness_over_the_last_hour(admin_client, ada):
    from datetime import timedelta

    from django.utils import timezone

    from social.models import Post, ScheduledRecord, SocialAccount

    account = SocialAccount.objects.create(user=ada, workspace=ada.personal_workspace,
                                           provider="devto", provider_user_id="1",
                                           username="ada-late")  # fmt: skip
    now = timezone.now()

    def attempted(late: float, *, ago: timedelta) -> None:
        at = (now - ago).isoformat()
        ScheduledRecord.objects.create(
            user=ada, workspace=account.workspace,
            post=Post.objects.create(user=ada, workspace=account.workspace, title="T", content="x"),
            account=account, provider="devto", scheduled_time=now, due_at=now,
            status="Published", attempts=1,
            history=[{"attempt": 1, "at": at, "outcome": "published", "late": late}],
        )  # fmt: skip

    for late in (0.01, 0.02, 0.03, 0.5):
        attempted(late, ago=timedelta(minutes=5))
    attempted(40.0, ago=timedelta(hours=2))  # before the last hour: not counted
    page = admin_client.get("/admin/social/scheduledrecord/")
    assert page.status_code == 200
    lateness = page.context["lateness"]
    assert (lateness.attempts, lateness.p50, lateness.worst, lateness.due_now) == (4, 0.03, 0.5, 0)
    text = page.content.decode()
    assert "4 attempts began" in text
    assert "0.500 s (worst)" in text
