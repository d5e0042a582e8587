"""Async generation, history, and the stored gigs and proposals."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connection
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services.sessions import session_issue
from accounts.services.users import user_create
from aitools.models import Generation
from billing.services.credits import credits_adjust
from notifications.models import Notification
from tests.aitools.conftest import BODIES
from tests.aitools.standin import standin_server
from tests.servers import api_server, migrate, server_env

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_prefer_respond_async_answers_202_then_delivers(ada_client, ada, committed, prefix):
    path, body = BODIES["gig_generate"]
    path = path.replace("/api", prefix, 1)
    with committed():  # the queued task runs as after a real commit
        response = ada_client.post(path, body, HTTP_PREFER="respond-async")
    assert response.status_code == 202
    data = response.json()["data"]
    assert set(data) == {"id", "tool", "title", "status", "creditsCharged", "created_at"}
    assert (data["tool"], data["status"], data["creditsCharged"]) == ("gig_generate", "pending", 2)
    # The entry's address under the prefix the client used.
    assert response["Location"] == f"{prefix}/history/{data['id']}"
    assert response["Preference-Applied"] == "respond-async"
    # The task ran (eagerly in tests): the result is on the history entry.
    detail = ada_client.get(f"/api/history/{data['id']}").json()["data"]
    assert detail["status"] == "succeeded"
    assert detail["result"]["title"]
    assert detail["tokensUsed"] > 0
    note = Notification.objects.get(user=ada)
    assert (note.type, note.category) == ("ai_complete", "AI Generation")
    assert note.metadata == {"generationId": data["id"], "tool": "gig_generate"}


def test_async_failure_refunds_and_notifies(ada_client, ada, committed, settings):
    with standin_server() as standin:
        standin.mode = "error"
        settings.AI_PROVIDER, settings.AI_BASE_URL, settings.AI_MODEL = "openai", standin.url, "m"
        path, body = BODIES["seo_audit"]
        with committed():
            response = ada_client.post(path, body, HTTP_PREFER="respond-async")
    assert response.status_code == 202
    entry = Generation.objects.get()
    assert entry.status == "failed"
    assert User.objects.get(pk=ada.pk).credits_remaining == 20
    assert Notification.objects.get(user=ada).type == "ai_failed"


def test_pending_async_jobs_are_bounded(ada_client, ada, settings):
    settings.AI_MAX_PENDING_JOBS = 2
    path, body = BODIES["seo_audit"]
    # Without on-commit execution the jobs stay pending, as if the worker were busy.
    for _ in range(2):
        assert ada_client.post(path, body, HTTP_PREFER="respond-async").status_code == 202
    response = ada_client.post(path, body, HTTP_PREFER="respond-async")
    assert response.status_code == 429
    assert User.objects.get(pk=ada.pk).credits_remaining == 18  # the refused job cost nothing


def test_stale_pending_generations_are_refunded(ada_client, ada):
    from datetime import timedelta

    from django.utils import timezone

    from aitools.tasks import fail_stale_generations_task

    path, body = BODIES["seo_audit"]
    ada_client.post(path, body, HTTP_PREFER="respond-async")
    Generation.objects.update(created_at=timezone.now() - timedelta(hours=1))
    assert fail_stale_generations_task.delay().get() == 1
    assert fail_stale_generations_task.delay().get() == 0
    assert Generation.objects.get().status == "failed"
    assert User.objects.get(pk=ada.pk).credits_remaining == 20


def test_history_lists_every_call_with_the_tool_filter(ada_client):
    for tool in ("seo_audit", "keywords_find", "seo_audit"):
        ada_client.post(*BODIES[tool])
    rows = ada_client.get("/api/history").json()["data"]
    assert [r["tool"] for r in rows] == ["seo_audit", "keywords_find", "seo_audit"]
    assert set(rows[0]) == {"id", "tool", "title", "status", "creditsCharged", "created_at"}
    filtered = ada_client.get("/api/history?tool=keywords_find&page=1").json()
    assert [r["tool"] for r in filtered["data"]] == ["keywords_find"]
    assert filtered["meta"]["limit"] == 20
    bad = ada_client.get("/api/history?tool=nope")
    assert bad.status_code == 400
    assert "tool" in bad.json()["error"]["details"]


def test_gigs_and_proposals_are_listed_read_edited_deleted(ada_client):
    gig = ada_client.post(*BODIES["gig_generate"]).json()["data"]
    proposal = ada_client.post(*BODIES["proposal_generate"]).json()["data"]
    listing = ada_client.get("/api/gigs?page=1").json()
    assert listing["meta"]["limit"] == 10
    assert [g["id"] for g in listing["data"]] == [gig["id"]]
    assert ada_client.get("/api/proposals?status=draft").json()["data"][0]["id"] == proposal["id"]
    assert ada_client.get("/api/proposals?status=won").json()["data"] == []
    assert ada_client.get("/api/gigs?status=bogus").status_code == 400

    edited = ada_client.patch(f"/api/gigs/{gig['id']}", {"title": "New title", "status": "active"})
    assert edited.status_code == 200
    assert (edited.json()["data"]["title"], edited.json()["data"]["status"]) == (
        "New title",
        "active",
    )
    assert ada_client.patch(f"/api/gigs/{gig['id']}", {"status": "sold"}).status_code == 400
    edited = ada_client.patch(
        f"/api/proposals/{proposal['id']}", {"content": "Rewritten", "status": "sent"}
    )
    assert edited.json()["data"]["content"] == "Rewritten"
    assert ada_client.get(f"/api/proposals/{proposal['id']}").json()["data"]["status"] == "sent"

    deleted = ada_client.delete(f"/api/gigs/{gig['id']}")
    assert deleted.json()["data"] == {"success": True}
    assert ada_client.get(f"/api/gigs/{gig['id']}").status_code == 404


def test_records_are_private(ada_client, ada):
    gig = ada_client.post(*BODIES["gig_generate"]).json()["data"]
    history = ada_client.get("/api/history").json()["data"][0]
    mallory = user_create(email="mallory@example.com")
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Bearer {session_issue(user=mallory).token}")
    assert other.get("/api/gigs").json()["data"] == []
    assert other.get("/api/history").json()["data"] == []
    for method, path in (
        ("get", f"/api/gigs/{gig['id']}"),
        ("patch", f"/api/gigs/{gig['id']}"),
        ("delete", f"/api/gigs/{gig['id']}"),
        ("get", f"/api/history/{history['id']}"),
    ):
        response = getattr(other, method)(path, {"title": "x"} if method == "patch" else None)
        assert response.status_code == 404, (method, path)
    assert ada_client.get(f"/api/gigs/{gig['id']}").json()["data"]["title"] == gig["title"]
    assert ada_client.get("/api/gigs/not-a-uuid").status_code == 404


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_calls_with_one_credit_on_postgres():
    user = user_create(email="race@example.com")
    credits_adjust(user=user, delta=-19)
    token = session_issue(user=user).token
    barrier = threading.Barrier(10)
    statuses: list[int] = []

    def call() -> None:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        barrier.wait()
        statuses.append(client.post(*BODIES["seo_audit"]).status_code)
        connection.close()

    threads = [threading.Thread(target=call) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [402] * 9
    assert User.objects.get(pk=user.pk).credits_remaining == 0


@pytest.mark.server
def test_ten_concurrent_calls_with_one_credit_on_embedded_sqlite(tmp_path):
    env = server_env(DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", FREE_PLAN_CREDITS="1")
    migrate(env)
    with api_server(env, workers=2, threads=5) as base:
        login = requests.post(
            f"{base}/api/auth/login", json={"email": "solo@example.com"}, timeout=10
        )
        token = login.json()["data"]["token"]
        path, body = BODIES["seo_audit"]

        def call(_: int) -> int:
            return requests.post(
                f"{base}{path}", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30
            ).status_code

        with ThreadPoolExecutor(max_workers=10) as pool:
            statuses = list(pool.map(call, range(10)))
        me = requests.get(
            f"{base}/api/auth/me", headers={"Authorization": f"Bearer {token}"}, timeout=10
        )
    assert sorted(statuses) == [200] + [402] * 9
    assert me.json()["data"]["credits_remaining"] == 0


# --- Claiming: one provider call and one charge per entry, whatever the deliveries --------


def test_a_repeated_delivery_calls_the_provider_once_and_charges_once(ada_client, ada, settings):
    from aitools.tasks import run_generation_task
    from billing.models import CreditTransaction

    with standin_server() as standin:
        settings.AI_PROVIDER, settings.AI_BASE_URL, settings.AI_MODEL = "openai", standin.url, "m"
        path, body = BODIES["seo_audit"]
        response = ada_client.post(path, body, HTTP_PREFER="respond-async")  # queued, not run
        entry_id = response.json()["data"]["id"]
        assert run_generation_task(entry_id) == "succeeded"
        assert run_generation_task(entry_id) == "skipped"  # the broker delivered it again
        assert len(standin.requests) == 1
    spends = CreditTransaction.objects.filter(user=ada, reason="spend")
    # The ledger row named the entry when it was written; it was never updated after.
    assert list(spends.values_list("reference", flat=True)) == [f"ai:seo_audit:{entry_id}"]
    assert not CreditTransaction.objects.filter(user=ada, reason="refund").exists()
    assert User.objects.get(pk=ada.pk).credits_remaining == 19


def test_only_one_claim_wins(ada_client):
    from aitools.services import generation_claim

    path, body = BODIES["seo_audit"]
    entry_id = ada_client.post(path, body, HTTP_PREFER="respond-async").json()["data"]["id"]
    first = generation_claim(generation_id=entry_id)
    assert first is not None
    assert first.status == "running"
    assert first.started_at is not None
    assert generation_claim(generation_id=entry_id) is None


def test_a_claimed_entry_whose_worker_died_is_refunded_once(ada_client, ada):
    from datetime import timedelta

    from django.db.models import F

    from aitools.services import generation_claim, generations_fail_stale

    path, body = BODIES["seo_audit"]
    entry_id = ada_client.post(path, body, HTTP_PREFER="respond-async").json()["data"]["id"]
    generation_claim(generation_id=entry_id)  # ... and the worker process dies here
    assert generations_fail_stale() == 0  # recently claimed: still in flight
    an_hour = timedelta(hours=1)  # ... and an hour passes: its lease ran out
    Generation.objects.filter(pk=entry_id).update(
        started_at=F("started_at") - an_hour, lease_expires_at=F("lease_expires_at") - an_hour
    )
    assert generations_fail_stale() == 1
    assert generations_fail_stale() == 0
    assert Generation.objects.get(pk=entry_id).status == "failed"
    assert User.objects.get(pk=ada.pk).credits_remaining == 20


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_on_postgres_have_one_winner():
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL); CI runs it")
    from django.db import connections

    from aitools.services import generation_claim, generation_start

    user = user_create(email="claims@example.com")
    entry = generation_start(
        user=user, tool="seo_audit", data={"title": "t", "description": "d"}, is_async=True
    )
    barrier = threading.Barrier(8)

    def claim(_: int) -> bool:
        try:
            barrier.wait()
            return generation_claim(generation_id=str(entry.pk)) is not None
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=8) as pool:
        wins = list(pool.map(claim, range(8)))
    assert wins.count(True) == 1
