"""The admin's "System status" page: staff only; the scheduler's lateness and backlog, failing
providers in the last hour, the webhook backlog, the outbox lag and the workers seen."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import User
from core.models import WorkerHeartbeat
from notifications.models import OutboxEvent, WebhookDelivery, WebhookEndpoint
from social.models import ScheduledRecord
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

URL = "/admin/status/"


def text(html: bytes) -> str:
    """The page's words, tags and runs of white space taken out."""
    return " ".join(re.sub(r"<[^>]+>", " ", html.decode()).split())


def test_staff_see_it_from_the_admin_s_index(admin_client):
    index = admin_client.get("/admin/")
    assert f'href="{URL}"' in index.content.decode()
    page = admin_client.get(URL)
    assert page.status_code == 200
    words = text(page.content)
    for heading in ("Scheduler", "Failing providers (last hour)", "Webhooks", "Outbox", "Workers"):
        assert heading in words
    assert "No failed attempt in the last hour." in words
    assert "0 seen in the last minute." in words


@pytest.mark.parametrize("who", ["anonymous", "user"])
def test_others_are_sent_to_the_admin_login(client, who):
    if who == "user":
        client.force_login(UserFactory.create(email="plain@example.com"))
    response = client.get(URL)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=/admin/status/")


def test_it_shows_what_is_waiting_failing_and_alive(admin_client, ada, mastodon_records):
    now = timezone.now()
    personal = ada.personal_workspace
    endpoint = WebhookEndpoint.objects.create(user=ada, workspace=personal,
                                              url="https://hooks.example.com/x",
                                              events=["post.published"])  # fmt: skip
    due = now - timedelta(minutes=15)
    WebhookDelivery.objects.create(endpoint=endpoint, workspace=personal, event_id=ada.pk,
                                   event="post.published", body="{}",
                                   next_attempt_at=due)  # fmt: skip
    OutboxEvent.objects.create(event="credits.depleted", user=ada,
                               created_at=now - timedelta(minutes=7))  # fmt: skip
    WorkerHeartbeat.objects.create(name="celery@worker-1", pid=42, processes=2,
                                   started_at=now - timedelta(hours=1), seen_at=now)  # fmt: skip
    words = text(admin_client.get(URL).content)
    assert "Backlog: due, not yet claimed 1 (oldest 300 s late)" in words
    assert re.search(r"mastodon 1 / 2 \S+ \S+: The server is unavailable", words)
    assert "Due now 1" in words
    assert re.search(r"Oldest due waiting 9\d\d s", words)
    assert re.search(r"Lag \(oldest waiting\) 4[23]\d s", words)
    assert "1 seen in the last minute." in words
    assert "celery@worker-1 (pid 42) 2" in words


@pytest.fixture
def mastodon_records(ada: User) -> list[ScheduledRecord]:
    """A record due 5 minutes ago, and one whose last hour holds a success and a failure."""
    from social.models import Post, SocialAccount

    account = SocialAccount.objects.create(user=ada, workspace=ada.personal_workspace,
                                           provider="mastodon", provider_user_id="1",
                                           username="ada")  # fmt: skip
    now = timezone.now()
    post = Post.objects.create(user=ada, workspace=ada.personal_workspace, content="Hello")
    due = ScheduledRecord.objects.create(post=post, user=ada, workspace=post.workspace,
                                         account=account, provider="mastodon",
                                         scheduled_time=now - timedelta(minutes=5),
                                         due_at=now - timedelta(minutes=5))  # fmt: skip
    other = Post.objects.create(user=ada, workspace=ada.personal_workspace, content="Again")
    history = [
        {"attempt": 1, "at": (now - timedelta(minutes=30)).isoformat(), "outcome": "error",
         "error": "The server is unavailable or busy (HTTP 503)."},
        {"attempt": 2, "at": (now - timedelta(minutes=20)).isoformat(), "outcome": "published"},
    ]  # fmt: skip
    done = ScheduledRecord.objects.create(post=other, user=ada, workspace=other.workspace,
                                          account=account, provider="mastodon",
                                          scheduled_time=now, due_at=now,
                                          status="Published", history=history)  # fmt: skip
    return [due, done]
