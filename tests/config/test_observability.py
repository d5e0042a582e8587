"""Observability in real processes (docs/operations.md): LOG_FORMAT=json lines, a bad
LOG_FORMAT refused; traces and error reports off unless configured (their libraries not even
imported), and when configured, sent to the collector and to Sentry (local stand-ins)."""

import gzip
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.servers import ROOT, server_env

pytestmark = pytest.mark.server

# A request through Django's whole stack, in a process of its own, then what was imported.
SCRIPT = """
import logging, sys, django
django.setup()
from django.test import Client
answer = Client(SERVER_NAME="localhost").get(sys.argv[1], HTTP_X_REQUEST_ID="proc-req-1")
logging.getLogger("tests").warning("after the request")
from core import telemetry
if "otel" in telemetry._done:
    from opentelemetry import trace
    trace.get_tracer_provider().force_flush()
if "sentry" in telemetry._done:
    import sentry_sdk
    sentry_sdk.flush()
print("STATUS", answer.status_code, answer["X-Request-ID"])
print("IMPORTED", "sentry_sdk" in sys.modules, "opentelemetry.sdk.trace" in sys.modules,
      "prometheus_client" in sys.modules)
"""


def run(path: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, path],
        cwd=ROOT,
        env=server_env(DATABASE_URL="sqlite:///:memory:", **env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def collector() -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    """One local HTTP server standing in for an OTLP collector and for Sentry: (its base URL,
    the (path, body) of every POST)."""
    received: list[tuple[str, bytes]] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            received.append((self.path, self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", received
    server.shutdown()
    server.server_close()


def test_json_lines_and_nothing_of_traces_or_sentry_when_unconfigured():
    done = run("/api/v1/health", LOG_FORMAT="json", METRICS_TOKEN="")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    # In JSON mode what the script prints is logged too, as JSON lines of the `stdout` logger.
    printed = [line["message"] for line in lines if line["logger"] == "stdout"]
    assert "STATUS 200 proc-req-1" in printed
    # Sentry and the tracing SDK are not imported (redis-py imports OpenTelemetry's metrics API
    # for itself), metrics are off too: nothing of them runs on a request.
    assert "IMPORTED False False False" in printed
    access = next(line for line in lines if line["logger"] == "core.api.access")
    assert (access["request_id"], access["route"], access["status"]) == (
        "proc-req-1", "/api/v1/health", 200)  # fmt: skip
    after = next(line for line in lines if line["logger"] == "tests")
    assert (after["message"], after["request_id"], after["level"]) == (
        "after the request", None, "WARNING")  # fmt: skip
    assert len(lines) == len(done.stderr.splitlines())  # every line is JSON


def test_a_bad_log_format_is_refused():
    done = run("/api/v1/health", LOG_FORMAT="yaml")
    assert done.returncode != 0
    assert "LOG_FORMAT must be 'text' or 'json'." in done.stderr


def test_traces_and_errors_reach_their_collectors(collector):
    base, received = collector
    dsn = base.replace("http://", "http://publickey@") + "/42"
    done = run("/api/v1/_probe/raise/boom", OTEL_EXPORTER_OTLP_ENDPOINT=base,
               SENTRY_DSN=dsn, OTEL_BSP_SCHEDULE_DELAY="50")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "STATUS 500 proc-req-1" in done.stdout
    assert "IMPORTED True True" in done.stdout
    traces = [body for path, body in received if path == "/v1/traces"]
    assert traces, received
    assert b"api/v1/_probe/raise/<str:kind>" in b"".join(traces)  # the request's span
    envelopes = [gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body
                 for path, body in received if path == "/api/42/envelope/"]  # fmt: skip
    assert envelopes, received
    sent = b"".join(envelopes).replace(b" ", b"")
    assert b'"request_id":"proc-req-1"' in sent
    assert b"secretinternals" in sent  # the RuntimeError's message: the error itself


def test_the_default_is_readable_text():
    done = run("/api/v1/health", METRICS_TOKEN="", LOG_FORMAT="")
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stderr.splitlines() if " core.api.access " in line)
    assert " INFO core.api.access [proc-req-1] GET /api/v1/health 200 " in line


# A magic link asked for and its e-mail sent, in a process logging as the compose stack does
# (LOG_FORMAT=json, Django's console e-mail backend named explicitly); then lines with a token
# in their message, their arguments and an exception. The link goes to a file, not the output.
MAGIC_LINK_SCRIPT = """
import logging, sys, django
django.setup()
from django.core.management import call_command
from django.test import Client
call_command("migrate", verbosity=0)
answer = Client(SERVER_NAME="localhost").post(
    "/api/auth/magic-link", {"email": "ada@example.com"}, content_type="application/json")
assert answer.status_code == 200, answer.content
url = answer.json()["data"]["magicUrl"]
open(sys.argv[1], "w").write(url)
token = url.split("token=")[1]
log = logging.getLogger("tests")
log.warning("Following %s", url)
log.info("Bearer %s and api key fgp_%s", token, token)
try:
    raise ValueError(f"bad link {url}")
except ValueError:
    log.exception("failed")
print("a stray print with", url)
"""


def test_json_logs_are_json_lines_without_any_token(tmp_path):
    written = tmp_path / "url"
    done = subprocess.run(
        [sys.executable, "-c", MAGIC_LINK_SCRIPT, str(written)],
        cwd=ROOT,
        env=server_env(
            DATABASE_URL="sqlite:///:memory:",
            LOG_FORMAT="json",
            RATE_LIMIT_FILE_DIR=str(tmp_path / "ratelimit"),  # this run's own counts
            CELERY_TASK_ALWAYS_EAGER="true",
            MAGIC_LINK_EXPOSE_URL="true",
            EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend",
        ),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    url = written.read_text()
    token = url.split("token=")[1]
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all(isinstance(entry, dict) for entry in entries)
    output = done.stdout + done.stderr
    assert token not in output
    assert url not in output
    messages = [entry["message"] for entry in entries]
    assert any("Your sign-in link" in message for message in messages)  # the e-mail was logged
    assert any("a stray print with" in message for message in messages)


TRACE_HEADERS = ("traceparent", "tracestate", "sentry-trace", "baggage")
# Outbound calls in a process with both OpenTelemetry and Sentry on, made inside a request's
# span as a provider call or a webhook would be: to a user's host, and to one of ours.
OUTBOUND_SCRIPT = """
import sys, django, requests
django.setup()
from opentelemetry import trace
import sentry_sdk
user_host, own_host = sys.argv[1], sys.argv[2]
with trace.get_tracer("tests").start_as_current_span("request"):
    with sentry_sdk.start_transaction(name="request", sampled=True):
        requests.get(user_host + "/hook", timeout=5)
        requests.get(own_host + "/internal", timeout=5)
trace.get_tracer_provider().force_flush()
sentry_sdk.flush()
"""


def test_trace_context_goes_to_our_own_services_only(collector):
    base, _ = collector
    seen: dict[str, dict[str, str]] = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            seen[self.path] = {name.lower(): value for name, value in self.headers.items()}
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    port = server.server_address[1]
    try:
        done = subprocess.run(
            [sys.executable, "-c", OUTBOUND_SCRIPT,
             f"http://127.0.0.1:{port}", f"http://localhost:{port}"],
            cwd=ROOT,
            env=server_env(
                DATABASE_URL="sqlite:///:memory:",
                OTEL_EXPORTER_OTLP_ENDPOINT=base,
                SENTRY_DSN=base.replace("http://", "http://publickey@") + "/42",
                SENTRY_TRACES_SAMPLE_RATE="1.0",
                TRACE_PROPAGATION_HOSTS="localhost",
            ),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )  # fmt: skip
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    assert [name for name in TRACE_HEADERS if name in seen["/hook"]] == []  # a user's host
    assert {"traceparent", "sentry-trace", "baggage"} <= set(seen["/internal"])  # ours


SENTRY_SCRIPT = """
import logging, django
django.setup()
import sentry_sdk

def sign_in(email):
    user_email = email
    raise LookupError(f"No account for {user_email}")

try:
    sign_in("ada.lovelace@example.com")
except LookupError:
    sentry_sdk.capture_exception()
logging.getLogger("tests").error("Delivery to grace@example.org failed")
sentry_sdk.flush()
"""


def test_sentry_events_carry_no_local_variables_nor_email_addresses(collector):
    base, received = collector
    done = subprocess.run(
        [sys.executable, "-c", SENTRY_SCRIPT],
        cwd=ROOT,
        env=server_env(DATABASE_URL="sqlite:///:memory:",
                       SENTRY_DSN=base.replace("http://", "http://publickey@") + "/42"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    envelopes = [gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body
                 for path, body in received if path == "/api/42/envelope/"]  # fmt: skip
    sent = b"".join(envelopes)
    assert b"LookupError" in sent  # the error itself went
    assert b"Delivery to" in sent  # and the ERROR line
    assert b"example.com" not in sent
    assert b"example.org" not in sent
    assert b"user_email" not in sent  # no local variables


def test_the_live_feed_streams_with_tracing_and_error_reports_on(tmp_path, collector):
    # Sentry wraps Django's WSGI handler: the stream's admission took the wrapper's iterable
    # for Django's answer, and every stream answered 500.
    from tests.notifications.test_livefeed import Reader, feed_server, open_stream, sign_in

    base_collector, received = collector
    dsn = base_collector.replace("http://", "http://publickey@") + "/42"
    with feed_server(tmp_path, "embedded", workers=1, OTEL_EXPORTER_OTLP_ENDPOINT=base_collector,
                     OTEL_BSP_SCHEDULE_DELAY="50", SENTRY_DSN=dsn) as (base, _):  # fmt: skip
        token = sign_in(base, "ada@example.com")
        stream = open_stream(base, token=token)
        assert isinstance(stream, Reader), stream
        assert stream.response.getheader("Content-Type", "").startswith("text/event-stream")
        stream.close()
    traces = b"".join(body for path, body in received if path == "/v1/traces")
    assert b"/api/auth/login" in traces  # tracing was on for the requests around it
