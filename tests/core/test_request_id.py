"""Request ids and log lines (docs/operations.md): X-Request-ID on every response, the client's
when sane; the request's log lines and its queued tasks' carry it; LOG_FORMAT=json writes the
contract's fields."""

import json
import logging
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from core import logs
from core.api.access import HEADER
from notifications.tasks import webhook_sweep_task

pytestmark = pytest.mark.django_db

GENERATED = re.compile(r"[0-9a-f]{32}")


@pytest.fixture
def lines(caplog) -> Any:
    """The log records of the test, with the request context every handler of ours adds."""
    caplog.handler.addFilter(logs.RequestContextFilter())
    caplog.set_level(logging.INFO)
    return caplog


@pytest.fixture
def receiver() -> Iterator[str]:
    """A webhook receiver on 127.0.0.1 that answers 200; its URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hooks"
    server.shutdown()
    server.server_close()


def test_every_response_carries_a_new_id(api, ada_client):
    first = api.get("/api/health")
    second = ada_client.get("/api/notifications")
    missing = api.get("/api/no-such-route")
    ids = [response[HEADER] for response in (first, second, missing)]
    assert [r.status_code for r in (first, second, missing)] == [200, 200, 404]
    assert all(GENERATED.fullmatch(value) for value in ids)
    assert len(set(ids)) == 3


@pytest.mark.parametrize(
    "offered",
    ["abc-123", "0af7651916cd43dd8448eb211c80319c", "Root=1-5759e988-bd862e3fe1be46a9", "a" * 128],
)
def test_a_sane_incoming_id_is_kept(api, offered):
    assert api.get("/api/health", HTTP_X_REQUEST_ID=offered)[HEADER] == offered


@pytest.mark.parametrize("offered", ["a" * 129, "has space", "<script>", "-leading-dash", "é"])
def test_an_insane_incoming_id_is_replaced(api, offered):
    answered = api.get("/api/health", HTTP_X_REQUEST_ID=offered)[HEADER]
    assert answered != offered
    assert GENERATED.fullmatch(answered)


def test_a_refused_request_has_an_id_too(api):
    response = api.get("/api/health/", HTTP_HOST="evil.example.com", HTTP_X_REQUEST_ID="r-1")
    other = api.get("/api/notifications", HTTP_HOST="evil.example.com", HTTP_X_REQUEST_ID="r-2")
    assert (response[HEADER], other.status_code, other[HEADER]) == ("r-1", 400, "r-2")


def test_the_request_s_log_lines_carry_its_id(ada_client, lines):
    response = ada_client.get("/api/no-such-route", HTTP_X_REQUEST_ID="trace-me-1")
    assert response.status_code == 404
    mine = [record for record in lines.records if getattr(record, "request_id", None)]
    (access,) = [record for record in mine if record.name == "core.api.access"]
    assert access.request_id == "trace-me-1"
    assert access.getMessage().startswith("GET /api/no-such-route 404 ")
    assert (access.method, access.route, access.status) == ("GET", "unmatched", 404)


def test_a_line_logged_outside_any_request_has_no_id(lines):
    logging.getLogger("tests").warning("outside")
    (record,) = [record for record in lines.records if record.name == "tests"]
    assert record.request_id is None


@pytest.mark.django_db(transaction=True)  # committed inside the request, as in production
def test_a_queued_task_s_log_line_carries_the_request_s_id(ada_client, lines, receiver):
    created = ada_client.post(
        "/api/webhooks/endpoints", {"url": receiver, "events": ["post.published"]}, format="json"
    )
    endpoint_id = created.json()["data"]["id"]
    response = ada_client.post(
        f"/api/webhooks/endpoints/{endpoint_id}/test", HTTP_X_REQUEST_ID="req-with-a-task"
    )
    assert response.status_code == 202, response.content
    task = "notifications.tasks.webhook_deliver_task"
    (finished,) = [r for r in lines.records if r.name == "core.logs"]
    assert (finished.request_id, finished.task) == ("req-with-a-task", task)
    assert finished.getMessage().startswith(f"Task {task} finished: SUCCESS in ")
    # Celery's own line of the task's end, logged while the task ran, carries it too.
    (celery,) = [r for r in lines.records if r.name == "celery.app.trace"]
    assert (celery.request_id, celery.task) == ("req-with-a-task", task)


def test_the_id_travels_in_the_task_s_headers_to_the_worker(lines):
    """Queuing stamps the message; a worker's run of it (here one run as a worker would, from
    the message's headers) logs with that id, and with none once it is done."""
    headers: dict[str, Any] = {}
    token = logs.bind(logs.RequestContext("queued-by-me"))
    try:
        logs.task_headers_stamped(headers=headers)
    finally:
        logs.unbind(token)
    assert headers == {"request_id": "queued-by-me"}
    webhook_sweep_task.apply(headers=headers)
    (finished,) = [r for r in lines.records if r.name == "core.logs"]
    assert (finished.request_id, finished.task) == ("queued-by-me", webhook_sweep_task.name)
    assert finished.state == "SUCCESS"
    assert logs.current() is None


def test_a_task_queued_by_no_request_adds_no_line_and_carries_no_id(lines):
    webhook_sweep_task.apply()
    assert [r for r in lines.records if r.name == "core.logs"] == []
    (celery,) = [r for r in lines.records if r.name == "celery.app.trace"]
    assert (celery.request_id, celery.task) == (None, webhook_sweep_task.name)


def test_json_lines_have_the_contract_s_fields(ada, ada_client, lines):
    ada_client.get("/api/notifications?page=1&limit=5", HTTP_X_REQUEST_ID="json-1")
    (access,) = [r for r in lines.records if r.name == "core.api.access"]
    entry = json.loads(logs.JsonFormatter().format(access))
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", entry.pop("time"))
    assert isinstance(entry.pop("duration"), float)
    assert entry.pop("message").startswith("GET /api/notifications 200 ")
    assert entry == {
        "level": "INFO",
        "logger": "core.api.access",
        "request_id": "json-1",
        "user_id": str(ada.pk),
        "method": "GET",
        "route": "/api/notifications",
        "status": 200,
        "path": "/api/notifications",
        "client": "127.0.0.1",
    }


def test_json_lines_outside_a_request_say_null_and_carry_the_traceback(lines):
    try:
        raise ValueError("boom")
    except ValueError:
        logging.getLogger("tests").exception("It failed")
    (record,) = [r for r in lines.records if r.name == "tests"]
    entry = json.loads(logs.JsonFormatter().format(record))
    assert {k: entry[k] for k in logs.FIELDS} == dict.fromkeys(logs.FIELDS)
    assert (entry["level"], entry["message"]) == ("ERROR", "It failed")
    assert entry["exception"].endswith("ValueError: boom")


def test_text_lines_put_the_id_after_the_logger(ada_client, lines):
    ada_client.get("/api/notifications", HTTP_X_REQUEST_ID="text-1")
    (access,) = [r for r in lines.records if r.name == "core.api.access"]
    line = logs.TextFormatter().format(access)
    assert re.fullmatch(
        r"\S+ \S+ INFO core\.api\.access \[text-1\] GET /api/notifications 200 .*", line
    )
