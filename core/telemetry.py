"""Traces and error reports, each only when configured (docs/operations.md, "Traces and
errors"); unconfigured, neither library is even imported, so nothing of them runs on a request.

- OTEL_EXPORTER_OTLP_ENDPOINT set: OpenTelemetry traces of Django's requests, Celery's tasks
  (the queuing and the run, linked), outbound HTTP (urllib3, through which core.outbound
  sends every call: provider calls, webhooks) and PostgreSQL (psycopg), through the official
  instrumentation packages, exported over OTLP/HTTP in batches by a background thread. The
  exporter reads the standard OTEL_* variables too (OTEL_EXPORTER_OTLP_HEADERS,
  OTEL_TRACES_SAMPLER, ...); OTEL_SERVICE_NAME names the service.
- SENTRY_DSN set: errors to Sentry (uncaught exceptions of requests and tasks, ERROR log lines),
  each tagged with the request id the logs carry; no personal data; performance traces only at
  SENTRY_TRACES_SAMPLE_RATE (0 by default: OpenTelemetry does traces).

Trace context (`traceparent`, `tracestate`, `sentry-trace`, `baggage`) goes out only to our
own services, the hosts in TRACE_PROPAGATION_HOSTS (none by default): never to a user-chosen
host (a webhook URL, a Mastodon instance) nor to a platform. Sentry is told so by its
`trace_propagation_targets`; for OpenTelemetry, the urllib3 instrumentation's request hook
marks a call to any other host and the process's propagator, which injects through the
standard ones, writes nothing into that call's headers. The call keeps its span.

Set up once per process from CoreConfig.ready(), before Django loads its middleware.
"""

import logging
import re
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

import core
from core import logs

logger = logging.getLogger(__name__)

_done: set[str] = set()


def setup() -> None:
    if settings.OTEL_EXPORTER_OTLP_ENDPOINT and "otel" not in _done:
        _done.add("otel")
        _tracing()
    if settings.SENTRY_DSN and "sentry" not in _done:
        _done.add("sentry")
        _errors()


def tracing() -> bool:
    """Whether this process sends traces (urllib3's instrumentation then makes its outbound
    calls' spans and sends `traceparent` to our own services)."""
    return "otel" in _done


def own_service(url: str) -> bool:
    """Whether `url` is one of our own services (TRACE_PROPAGATION_HOSTS)."""
    host = (urlsplit(url).hostname or "").lower()
    return bool(host) and host in settings.TRACE_PROPAGATION_HOSTS


def propagation_targets(hosts: Iterable[str]) -> list[str]:
    """Sentry's trace_propagation_targets for these hosts: each URL's host, exactly."""
    return [rf"^https?://{re.escape(host)}(:\d+)?(/|\?|$)" for host in hosts]


# The headers of the outbound call now being sent, when its host is not ours: the
# propagator below leaves exactly that carrier alone (the instrumentation calls the request
# hook, then injects into the request's headers).
_withheld: ContextVar[object | None] = ContextVar("trace_context_withheld", default=None)


def _outbound_call_seen(span: Any, pool: Any, request: Any) -> None:
    """The urllib3 instrumentation's request hook (`request`: its RequestInfo; a pinned
    pool's URL names the checked address, never one of our own hosts)."""
    _withheld.set(None if own_service(str(request.url)) else request.headers)


def _own_services_only(inner: Any) -> Any:
    """The process's propagator: the standard ones, except into a call to another host."""
    from opentelemetry.propagators.textmap import TextMapPropagator, default_setter

    class OwnServicesPropagator(TextMapPropagator):
        def extract(self, carrier: Any, context: Any = None, getter: Any = None) -> Any:
            if getter is None:
                return inner.extract(carrier, context)
            return inner.extract(carrier, context, getter)

        def inject(self, carrier: Any, context: Any = None, setter: Any = default_setter) -> None:
            if carrier is not None and carrier is _withheld.get():
                _withheld.set(None)
                return
            inner.inject(carrier, context, setter)

        @property
        def fields(self) -> set[str]:
            return set(inner.fields)

    return OwnServicesPropagator()


def _tracing() -> None:
    from opentelemetry import propagate, trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.urllib3 import URLLib3Instrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create(
        {
            "service.name": settings.OTEL_SERVICE_NAME,
            "service.version": core.__version__,
            "deployment.environment": str(settings.ENVIRONMENT),
        }
    )
    provider = TracerProvider(resource=resource)
    # The endpoint is the collector's base URL; the exporter adds /v1/traces (the standard
    # variable's meaning). A batch thread sends spans, never the request's thread.
    endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT.rstrip("/") + "/v1/traces"
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    trace.set_tracer_provider(provider)
    propagate.set_global_textmap(_own_services_only(propagate.get_global_textmap()))
    DjangoInstrumentor().instrument(is_sql_commentor_enabled=False)
    CeleryInstrumentor().instrument()  # type: ignore[no-untyped-call]
    # A span's URL as a log line shows it: a token in a path (a Discord webhook's) redacted.
    URLLib3Instrumentor().instrument(request_hook=_outbound_call_seen, url_filter=logs.redact)
    PsycopgInstrumentor().instrument(enable_commenter=False)
    logger.info("OpenTelemetry traces go to %s", endpoint)


EMAIL = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")


def _scrubbed(value: Any) -> Any:
    """`value` with every e-mail address (a user's, in a message, a log line's arguments or a
    breadcrumb) replaced, and every token and link the logs would not show either."""
    if isinstance(value, str):
        return logs.redact(EMAIL.sub("[email]", value))
    if isinstance(value, dict):
        return {key: _scrubbed(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_scrubbed(item) for item in value]
    return value


def _before_send(event: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    """Every Sentry event names the request (or the queuing request) it happened in, and
    carries no e-mail address nor token."""
    event = _scrubbed(event)
    request_id = logs.current_request_id()
    if request_id:
        event.setdefault("tags", {})["request_id"] = request_id
    return event


def _breadcrumb(crumb: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    return _scrubbed(crumb)


def _errors() -> None:
    import sentry_sdk

    sentry_sdk.init(
        dsn=settings.SENTRY_DSN,
        environment=str(settings.ENVIRONMENT),
        release=core.__version__,
        # No personal data: no user, cookies or headers (send_default_pii), no frame's local
        # variables (a user's e-mail in a service's arguments), no address in any text.
        send_default_pii=False,
        include_local_variables=False,
        traces_sample_rate=settings.SENTRY_TRACES_SAMPLE_RATE,
        # Its default is every host: sentry-trace and baggage to users' webhook URLs too.
        trace_propagation_targets=propagation_targets(settings.TRACE_PROPAGATION_HOSTS),
        before_send=_before_send,  # type: ignore[arg-type]
        before_send_transaction=_before_send,  # type: ignore[arg-type]
        before_breadcrumb=_breadcrumb,
    )
    logger.info("Errors are reported to Sentry")
