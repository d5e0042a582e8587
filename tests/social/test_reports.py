"""The report through HTTP (workspaces.md section 4): per network and in total, published,
on-time rate, failures by category, engagement sums, the top five posts and the approvals'
median turnaround, as JSON, as CSV (one row per published record) and as a PDF whose text,
extracted back with pypdf, holds the figures; for members who may read it and through a
report link; in a number of queries that does not grow with the posts."""

import csv
import io
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from pypdf import PdfReader
from rest_framework.test import APIClient

from social.models import (
    AnalyticsRecord,
    ApprovalRequest,
    Post,
    ScheduledRecord,
)
from social.tasks import metrics_collect_task
from tests.factories import UserFactory, client_for, shared_workspace

pytestmark = pytest.mark.django_db

PROVIDERS = ("linkedin", "facebook", "instagram", "bluesky", "mastodon", "devto")
COUNTERS = ("impressions", "reactions", "comments", "shares", "clicks")


def publish(client: APIClient, accounts: dict[str, Any], content: str, providers: Any) -> str:
    response = client.post(
        "/api/social/publish",
        {"title": "Launch", "content": content, "mediaUrls": [providers.image()],
         "accountIds": [a["id"] for a in accounts.values()]},
        format="json",
    )  # fmt: skip
    assert all(r["success"] for r in response.json()["data"]), response.content
    return str(ScheduledRecord.objects.filter(post__content=content).values_list("post_id")[0][0])


@pytest.fixture
def month(ada, ada_client, providers, connect_all) -> dict[str, Any]:
    """Ada's personal workspace: a post out on six networks (its LinkedIn record 5 minutes
    late), counters read, a Bluesky record failed (rate limited), and approvals decided
    after 2 and 4 hours (and one rejected, one pending: not counted)."""
    accounts = connect_all()
    post_id = publish(ada_client, accounts, "We shipped; the spring menu", providers)
    late = ScheduledRecord.objects.get(post_id=post_id, provider="linkedin")
    ScheduledRecord.objects.filter(pk=late.pk).update(
        published_at=late.scheduled_time + timedelta(minutes=5)
    )
    assert metrics_collect_task.delay().get() == {"records": 6, "collected": 6}
    scheduled = ada_client.post(
        "/api/social/schedule",
        {"content": "Tomorrow", "accountIds": [accounts["bluesky"]["id"]],
         "scheduledTime": (timezone.now() + timedelta(hours=1)).isoformat()},
        format="json",
    )  # fmt: skip
    assert scheduled.status_code == 200, scheduled.content
    failing = scheduled.json()["data"]["scheduledRecords"][0]["id"]
    ScheduledRecord.objects.filter(pk=failing).update(
        status="Failed",
        error_code="provider_unavailable",
        error="Too many requests",
        scheduled_time=timezone.now() - timedelta(minutes=1),
        history=[{"attempt": 3, "outcome": "error", "status": 429, "category": "rate_limited"}],
    )
    now = timezone.now()
    post = Post.objects.get(pk=post_id)
    for hours, status in ((2, "approved"), (4, "stale"), (1, "rejected"), (None, "pending")):
        asked = now - timedelta(hours=(hours or 0) + 1)
        ApprovalRequest.objects.create(
            workspace_id=post.workspace_id,
            post=post,
            version="v",
            status=status,
            created_at=asked,
            expires_at=asked + timedelta(days=14),
            decided_at=asked + timedelta(hours=hours) if hours else None,
        )
    return {"accounts": accounts, "post_id": post_id, "workspace": str(post.workspace_id)}


def report(client: APIClient, workspace: str, **query: Any) -> Any:
    return client.get(f"/api/workspaces/{workspace}/report", query)


def latest(provider: str | None = None) -> dict[str, int]:
    rows = AnalyticsRecord.objects.all()
    if provider:
        rows = rows.filter(provider=provider)
    return {name: sum(getattr(row, name) for row in rows) for name in COUNTERS}


def test_the_report_as_json(ada_client, month):
    today = timezone.now().date()
    response = report(ada_client, month["workspace"], **{"from": str(today - timedelta(days=6)),
                                                         "to": str(today)})  # fmt: skip
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["from"], data["to"]) == (str(today - timedelta(days=6)), str(today))
    totals = data["totals"]
    assert totals["published"] == 6
    assert totals["onTimeRate"] == pytest.approx(5 / 6, abs=1e-4)
    assert totals["failed"] == {"rate_limited": 1}
    assert {name: totals[name] for name in COUNTERS} == latest()
    assert totals["impressions"] > 0
    assert totals["reactions"] > 0
    networks = {row["provider"]: row for row in data["networks"]}
    assert list(networks) == list(PROVIDERS)  # the registry's order
    linkedin = networks["linkedin"]
    assert (linkedin["published"], linkedin["onTimeRate"]) == (1, 0.0)
    assert {name: linkedin[name] for name in COUNTERS} == {
        "impressions": 120, "reactions": 7, "comments": 2, "shares": 1, "clicks": 0,
    }  # fmt: skip
    assert networks["bluesky"]["failed"] == {"rate_limited": 1}
    assert networks["mastodon"]["failed"] == {}
    assert networks["mastodon"]["onTimeRate"] == 1.0
    top = data["topPosts"]
    assert len(top) == 5  # of six records with engagement
    assert [row["engagement"] for row in top] == sorted(
        (row["engagement"] for row in top), reverse=True
    )
    assert top[0]["postId"] == month["post_id"]
    assert top[0]["content"] == "We shipped; the spring menu"
    assert top[0]["url"].startswith("http")
    assert set(top[0]) == {"postId", "provider", "url", "content", "engagement"}
    assert data["approvalMedianHours"] == 3.0  # 2 h and 4 h; the rejected one is not counted


def test_the_report_as_csv_has_a_row_per_published_record(ada_client, month):
    response = report(ada_client, month["workspace"], format="csv")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 6
    assert sorted(row["provider"] for row in rows) == sorted(PROVIDERS)
    by = {row["provider"]: row for row in rows}
    assert by["linkedin"]["onTime"] == "no"
    assert by["mastodon"]["onTime"] == "yes"
    assert (by["linkedin"]["impressions"], by["linkedin"]["reactions"]) == ("120", "7")
    assert by["devto"]["content"] == "We shipped; the spring menu"
    assert {row["postId"] for row in rows} == {month["post_id"]}


def test_a_csv_cell_is_never_a_formula(ada_client, providers, connect_all):
    accounts = connect_all()
    publish(ada_client, {"m": accounts["mastodon"]}, '=HYPERLINK("http://evil")', providers)
    workspace = str(ScheduledRecord.objects.get().workspace_id)
    response = report(ada_client, workspace, format="csv")
    (row,) = csv.DictReader(io.StringIO(response.content.decode()))
    assert row["content"] == '\'=HYPERLINK("http://evil")'


def test_the_report_as_a_pdf_holds_the_figures(ada, ada_client, month):
    response = report(ada_client, month["workspace"], format="pdf")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    reader = PdfReader(io.BytesIO(response.content))
    text = "\n".join(page.extract_text() for page in reader.pages)
    totals = latest()
    assert f"Report: {ada.personal_workspace.name}" in text
    assert "Published: 6" in text
    assert "On time (within 60 s of their time): 83%" in text
    assert f"Impressions: {totals['impressions']}" in text
    assert f"Reactions: {totals['reactions']}" in text
    assert "Failed: rate_limited: 1" in text
    assert "Approval turnaround (median): 3.0 h" in text
    assert "LinkedIn" in text
    assert "We shipped; the spring menu" in text


def test_dates_are_checked_and_named(ada_client, month):
    workspace = month["workspace"]
    for query, field in (
        ({"from": "2026-02-30"}, "from"),
        ({"to": "yesterday"}, "to"),
        ({"from": "2026-01-10", "to": "2026-01-09"}, "to"),
        ({"from": "2025-01-01", "to": "2026-01-02"}, "to"),  # 367 days
        ({"format": "xlsx"}, "format"),
    ):
        response = report(ada_client, workspace, **query)
        assert response.status_code == 400, (query, response.content)
        assert field in response.json()["error"]["details"], query
    assert (
        report(ada_client, workspace, **{"from": "2025-01-01", "to": "2026-01-01"}).status_code
        == 200
    )


def test_the_period_is_read_in_the_workspace_s_time_zone(ada_client, month):
    tomorrow = (timezone.now() + timedelta(days=1)).date()
    empty = report(ada_client, month["workspace"], **{"from": str(tomorrow), "to": str(tomorrow)})
    data = empty.json()["data"]
    assert data["totals"]["published"] == 0
    assert data["totals"]["onTimeRate"] is None
    assert data["topPosts"] == []
    assert data["approvalMedianHours"] is None
    assert data["timezone"] == "UTC"
    pdf = report(ada_client, month["workspace"], format="pdf", **{"from": str(tomorrow)})
    assert pdf.status_code == 400  # `to` (today) before `from`


def test_the_queries_do_not_grow_with_the_posts(ada_client, providers, connect_all):
    accounts = connect_all()
    publish(ada_client, accounts, "First", providers)
    metrics_collect_task.delay()
    workspace = str(ScheduledRecord.objects.values_list("workspace_id")[0][0])
    counts = []
    for round_ in range(2):
        for format_ in ("json", "csv", "pdf"):
            with CaptureQueriesContext(connection) as queries:
                assert report(ada_client, workspace, format=format_).status_code == 200
            counts.append((format_, len(queries)))
        for n in range(4):
            publish(ada_client, accounts, f"More {round_} {n}", providers)
        metrics_collect_task.delay()
    assert counts[:3] == counts[3:]


def test_who_may_read_the_report(ada, ada_client, bob_client):
    viewer, client_user, editor = (UserFactory.create() for _ in range(3))
    shared = shared_workspace(ada, members={viewer: "viewer", client_user: "client",
                                            editor: "editor"})  # fmt: skip
    for user in (viewer, client_user, editor):
        assert report(client_for(user), str(shared.pk)).status_code == 200
    gone = report(bob_client, str(shared.pk))
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "workspace_not_found")


def test_a_report_link_shows_the_report_with_no_account(ada, ada_client, month):
    made = ada_client.post(
        f"/api/workspaces/{month['workspace']}/share-links", {"kind": "report"}, format="json"
    ).json()["data"]
    visitor = APIClient()
    public = visitor.get(f"/api/public/reports/{made['token']}")
    assert public.status_code == 200, public.content
    members = report(ada_client, month["workspace"]).json()["data"]
    assert public.json()["data"] == members
    text = public.content.decode()
    for secret in (ada.email, *(a["id"] for a in month["accounts"].values())):
        assert secret not in text
    pdf = visitor.get(f"/api/public/reports/{made['token']}", {"format": "pdf"})
    assert pdf.status_code == 200
    assert "Published: 6" in PdfReader(io.BytesIO(pdf.content)).pages[0].extract_text()
    csv_answer = visitor.get(f"/api/public/reports/{made['token']}", {"format": "csv"})
    assert csv_answer["Content-Type"] == "text/csv; charset=utf-8"
    bad = visitor.get(f"/api/public/reports/{made['token']}", {"from": "nope"})
    assert bad.status_code == 400
    ada_client.delete(f"/api/workspaces/{month['workspace']}/share-links/{made['id']}")
    assert visitor.get(f"/api/public/reports/{made['token']}").status_code == 410
