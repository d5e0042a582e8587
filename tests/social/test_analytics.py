"""Analytics: collected from each platform for published records, one row per day, one
provider's outage stopping nothing else; read through the API with its filters."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from social.models import AnalyticsRecord, ScheduledRecord, SocialAccount
from social.tasks import metrics_collect_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def published(ada_client, providers, connect_all):
    accounts = connect_all()
    response = ada_client.post(
        "/api/social/publish",
        {"title": "Launch", "content": "We shipped.", "mediaUrls": [providers.image()],
         "accountIds": [a["id"] for a in accounts.values()]},
        format="json",
    )  # fmt: skip
    assert all(r["success"] for r in response.json()["data"]), response.content
    return accounts


def test_collect_then_read_with_filters(ada_client, providers, published):
    result = metrics_collect_task.delay().get()
    assert result == {"records": 6, "collected": 6}
    metrics_collect_task.delay()  # a second run the same day updates the day's rows
    assert AnalyticsRecord.objects.count() == 6
    rows = ada_client.get("/api/social/analytics").json()["data"]
    assert len(rows) == 6
    by_provider = {row["provider"]: row for row in rows}
    assert by_provider["linkedin"]["impressions"] == 120
    assert by_provider["linkedin"]["engagement"] == 10
    assert by_provider["mastodon"]["engagement"] == 6
    assert by_provider["devto"]["impressions"] == 30
    assert by_provider["bluesky"]["engagement"] == 7
    assert by_provider["facebook"]["engagement"] == 8
    assert set(rows[0]) == {"id", "provider", "accountId", "postId", "recordId", "impressions",
                            "engagement", "clicks", "date"}  # fmt: skip
    only = ada_client.get("/api/social/analytics", {"provider": "devto"}).json()["data"]
    assert [row["provider"] for row in only] == ["devto"]
    account = published["mastodon"]["id"]
    assert len(ada_client.get("/api/social/analytics", {"accountId": account}).json()["data"]) == 1
    today = timezone.now().date()
    assert (
        ada_client.get("/api/social/analytics", {"from": str(today + timedelta(days=1))}).json()[
            "data"
        ]
        == []
    )
    assert ada_client.get("/api/social/analytics", {"to": "yesterday"}).status_code == 400


def test_one_providers_outage_stops_nothing_else(ada_client, providers, published):
    providers.linkedin.fail = "down"
    providers.devto.expired = True
    result = metrics_collect_task.delay().get()
    assert result["collected"] == 4
    assert result["failed:linkedin"] == result["failed:devto"] == 1
    assert SocialAccount.objects.get(provider="devto").status == "expired"
    assert SocialAccount.objects.get(provider="linkedin").status == "connected"


def test_only_the_last_30_days_are_collected(ada_client, providers, published):
    ScheduledRecord.objects.filter(provider="devto").update(
        published_at=timezone.now() - timedelta(days=31)
    )
    call_command("collect_metrics")
    assert sorted(AnalyticsRecord.objects.values_list("provider", flat=True)) == sorted(
        ["linkedin", "facebook", "instagram", "bluesky", "mastodon"]
    )


def test_analytics_pages_by_20_by_default(ada_client, ada):
    from social.models import Post, RecordStatus

    account = SocialAccount.objects.create(
        user=ada,
        workspace=ada.personal_workspace,
        provider="devto",
        provider_user_id="1",
        username="ada",
    )
    post = Post.objects.create(user=ada, workspace=ada.personal_workspace, title="T", content="x")
    record = ScheduledRecord.objects.create(
        user=ada, workspace=ada.personal_workspace, post=post, account=account, provider="devto",
        status=RecordStatus.PUBLISHED,
        scheduled_time=timezone.now(), due_at=timezone.now(),
    )  # fmt: skip
    today = timezone.now().date()
    AnalyticsRecord.objects.bulk_create(
        AnalyticsRecord(
            record=record,
            workspace=ada.personal_workspace,
            post=post,
            account=account,
            provider="devto",
            date=today - timedelta(days=day),
        )
        for day in range(25)
    )
    response = ada_client.get("/api/social/analytics", {"page": 1})
    assert response.status_code == 200
    body = response.json()
    assert len(body["data"]) == 20
    assert (body["meta"]["limit"], body["meta"]["total"]) == (20, 25)
