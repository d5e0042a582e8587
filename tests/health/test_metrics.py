"""GET /metrics (docs/operations.md): refused without the token, 404 with none set; shows a
request under its route template, a scheduled post's publish and its webhook delivery; labels
stay bounded (no path, user, id or URL in any of them)."""

import threading
import uuid
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families

from core.models import WorkerHeartbeat
from notifications.models import OutboxEvent, WebhookDelivery
from social.models import ScheduledRecord
from tests.social.conftest import CRON_SECRET

pytestmark = pytest.mark.django_db

TOKEN = "test-metrics-token"  # config.settings.test
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: Any) -> Samples:
    response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
def receiver() -> Iterator[list[bytes]]:
    """A webhook receiver on 127.0.0.1 answering 200: the bodies it got (its URL first)."""
    received: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            received.append(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    received.append(f"http://127.0.0.1:{server.server_address[1]}/hooks".encode())
    yield received
    server.shutdown()
    server.server_close()


def test_refused_without_or_with_a_wrong_token(client):
    for headers in ({}, {"HTTP_AUTHORIZATION": "Bearer wrong"},
                    {"HTTP_AUTHORIZATION": f"Basic {TOKEN}"},
                    {"HTTP_AUTHORIZATION": f"Bearer {TOKEN}x"}):  # fmt: skip
        response = client.get("/metrics", **headers)
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
        assert b"fgp_" not in response.content


def test_no_token_set_is_404(client, settings):
    settings.METRICS_TOKEN = ""
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 404
    assert client.get("/metrics").status_code == 404


def test_a_request_is_counted_under_its_route_template(client, ada, ada_client):
    before = scrape(client)
    ids = [uuid.uuid4(), uuid.uuid4()]
    for post_id in ids:
        assert ada_client.get(f"/api/social/posts/{post_id}").status_code == 404
    assert ada_client.get(f"/api/v1/social/posts/{ids[0]}").status_code == 404
    assert ada_client.get(f"/api/no/such/{ids[0]}").status_code == 404
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    route = "/api/social/posts/<uuid:post_id>"
    requests = "fgp_http_requests_total"
    assert delta(requests, route=route, method="GET", status="404") == 2
    assert delta(requests, route="/api/v1/social/posts/<uuid:post_id>", method="GET",
                 status="404") == 1  # fmt: skip
    assert delta(requests, route="unmatched", method="GET", status="404") == 1
    assert delta("fgp_http_request_duration_seconds_count", route=route, method="GET") == 2
    # The scrape before counts too, under its own route.
    assert delta(requests, route="/metrics", method="GET", status="200") == 1
    labels = {v for (_, pairs) in after for (_, v) in pairs}
    assert not {str(i) for i in ids} & labels
    assert not any(str(ada.pk) in v or "example.com" in v for v in labels)


@pytest.mark.usefixtures("cron_secret")
def test_a_scheduled_publish_and_its_webhook_delivery_show(
    client, ada_client, ada_accounts, receiver, committed
):
    url = receiver[0].decode()
    created = ada_client.post(
        "/api/webhooks/endpoints", {"url": url, "events": ["post.published"]}, format="json"
    )
    assert created.status_code == 200
    before = scrape(client)
    later = (timezone.now() + timedelta(hours=1)).isoformat()
    response = ada_client.post("/api/social/schedule", {
        "content": "Scheduled post #launch", "accountIds": [ada_accounts["mastodon"]["id"]],
        "scheduledTime": later}, format="json")  # fmt: skip
    assert response.status_code == 200, response.content
    record_id = response.json()["data"]["scheduledRecords"][0]["id"]
    ScheduledRecord.objects.filter(pk=record_id).update(
        due_at=timezone.now() - timedelta(seconds=3)
    )
    with committed():
        run = client.post("/api/social/scheduler/run", content_type="application/json",
                          HTTP_X_CRON_SECRET=CRON_SECRET)  # fmt: skip
    assert run.status_code == 200
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    assert WebhookDelivery.objects.get().status == "succeeded"
    assert len(receiver) == 2  # the URL, then the delivery
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("fgp_scheduler_attempts_total", provider="mastodon", outcome="published") == 1
    assert delta("fgp_publish_outcomes_total", provider="mastodon", outcome="published") == 1
    assert delta("fgp_scheduler_lateness_seconds_count", provider="mastodon") == 1
    # Claimed about 3 s late: in the 5 s bucket, not in the 2 s one.
    assert delta("fgp_scheduler_lateness_seconds_bucket", provider="mastodon", le="5.0") == 1
    assert delta("fgp_scheduler_lateness_seconds_bucket", provider="mastodon", le="2.0") == 0
    assert delta("fgp_provider_calls_total", provider="mastodon", operation="POST",
                 outcome="ok") >= 1  # fmt: skip
    assert delta("fgp_provider_calls_total", provider="webhooks", operation="POST",
                 outcome="ok") == 1  # fmt: skip
    assert delta("fgp_webhook_deliveries_total", outcome="succeeded") == 1
    route = "/api/social/scheduler/run"
    assert delta("fgp_http_requests_total", route=route, method="POST", status="200") == 1
    labels = {v for (_, pairs) in after for (_, v) in pairs}
    assert not any("127.0.0.1" in v or record_id in v for v in labels)


def test_the_database_gauges(client, ada):
    now = timezone.now()
    OutboxEvent.objects.create(event="credits.depleted", user=ada, created_at=now - timedelta(
        seconds=90))  # fmt: skip
    WorkerHeartbeat.objects.create(name="celery@a", pid=1, processes=2, started_at=now,
                                   seen_at=now)  # fmt: skip
    WorkerHeartbeat.objects.create(name="celery@b", pid=2, processes=2, started_at=now,
                                   seen_at=now - timedelta(minutes=5))  # fmt: skip
    samples = scrape(client)
    assert value(samples, "fgp_outbox_backlog") == 1
    assert 89 < value(samples, "fgp_outbox_lag_seconds") < 120
    assert value(samples, "fgp_workers_seen") == 1
    assert value(samples, "fgp_scheduler_records_due") == 0
    assert value(samples, "fgp_webhook_pending_deliveries") == 0
    assert value(samples, "fgp_state_up") == 1
    assert ("fgp_celery_queue_length", (("queue", "celery"),)) in samples
    assert value(samples, "fgp_build_info", version="0.2.0") == 1


# A process that has recorded nothing yet (a server just started), scraped once.
FRESH_SCRAPE = """
import sys, django
django.setup()
from django.core.management import call_command
from django.test import Client
call_command("migrate", verbosity=0)
answer = Client(SERVER_NAME="localhost").get("/metrics", HTTP_AUTHORIZATION="Bearer fresh-token")
assert answer.status_code == 200, answer.status_code
sys.stdout.write(answer.content.decode())
"""
# Every family contract.md ("Observability") names, as docs/operations.md lists them.
CONTRACT_FAMILIES = (
    "fgp_http_requests", "fgp_http_request_duration_seconds", "fgp_provider_calls",
    "fgp_provider_call_duration_seconds", "fgp_scheduler_lateness_seconds",
    "fgp_scheduler_records_due", "fgp_scheduler_attempts", "fgp_webhook_deliveries",
    "fgp_webhook_pending_deliveries", "fgp_webhook_oldest_pending_seconds",
    "fgp_outbox_lag_seconds", "fgp_livefeed_open_streams", "fgp_ai_generations",
    "fgp_celery_queue_length", "fgp_publish_outcomes",
)  # fmt: skip


@pytest.mark.server
def test_every_family_is_there_before_its_first_event(tmp_path):
    # An alert on a counter must tell "none happened" (0) from "not scraped" (absent).
    import subprocess
    import sys

    from aitools.tools import TOOLS
    from social.networks import NETWORKS
    from tests.servers import ROOT, server_env

    # Its own (empty) embedded broker: the checkout's var/celery may hold other runs' tasks.
    env = server_env(DATABASE_URL="sqlite:///:memory:", METRICS_TOKEN="fresh-token",
                     METRICS_DIR=str(tmp_path),
                     CELERY_DATA_DIR=str(tmp_path / "celery"))  # fmt: skip
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # this test process's own folder
    done = subprocess.run([sys.executable, "-c", FRESH_SCRAPE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    families = {family.name: family for family in text_string_to_metric_families(done.stdout)}
    assert set(CONTRACT_FAMILIES) <= set(families)
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in families.values()
        for sample in family.samples
    }

    def zero(name: str, **labels: str) -> bool:
        return samples.get((name, tuple(sorted(labels.items())))) == 0.0

    for outcome in ("succeeded", "retry", "failed"):
        assert zero("fgp_webhook_deliveries_total", outcome=outcome)
    for platform in NETWORKS:
        for outcome in ("published", "scheduled", "failed", "unconfirmed", "lost"):
            assert zero("fgp_scheduler_attempts_total", provider=platform, outcome=outcome)
        for outcome in ("published", "failed", "unconfirmed"):
            assert zero("fgp_publish_outcomes_total", provider=platform, outcome=outcome)
        assert zero("fgp_scheduler_lateness_seconds_count", provider=platform)
    for tool in TOOLS:
        for outcome in ("succeeded", "failed"):
            assert zero("fgp_ai_generations_total", tool=tool, outcome=outcome)
    assert zero("fgp_livefeed_open_streams")
    assert zero("fgp_celery_queue_length", queue="celery")
    assert zero("fgp_webhook_pending_deliveries")
