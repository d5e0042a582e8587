"""Traces and error reports, each only when configured (docs/operations.md, "Traces and
errors"); unconfigured, neither library is even imported, so nothing of them runs on a request.

- OTEL_EXPORTER_OTLP_ENDPOINT set: OpenTelemetry traces of Django's requests, Celery's tasks
  (the queuing and the run, linked), outbound HTTP (`requests`: provider calls, webhooks) and
  PostgreSQL (psycopg), through the official instrumentation packages, exported over OTLP/HTTP
  in batches by a background thread. The exporter reads the standard OTEL_* variables too
  (OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER, ...); OTEL_SERVICE_NAME names the service.
- SENTRY_DSN set: errors to Sentry (uncaught exceptions of requests and tasks, ERROR log lines),
  each tagged with the request id the logs carry; no personal data; performance traces only at
  SENTRY_TRACES_SAMPLE_RATE (0 by default: OpenTelemetry does traces).

Set up once per process from CoreConfig.ready(), before Django loads its middleware.
"""

import logging
from typing import Any

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
    """Whether this process sends traces (its outbound calls then go through requests, whose
    instrumentation makes their spans and sends `traceparent`)."""
    return "otel" in _done


def _tracing() -> None:
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.requests import RequestsInstrumentor
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
    DjangoInstrumentor().instrument(is_sql_commentor_enabled=False)
    CeleryInstrumentor().instrument()  # type: ignore[no-untyped-call]
    RequestsInstrumentor().instrument()
    PsycopgInstrumentor().instrument(enable_commenter=False)
    logger.info("OpenTelemetry traces go to %s", endpoint)


def _tagged(event: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    """Every Sentry event names the request (or the queuing request) it happened in."""
    request_id = logs.current_request_id()
    if request_id:
        event.setdefault("tags", {})["request_id"] = request_id
    return event


def _errors() -> None:
    import sentry_sdk

    sentry_sdk.init(
        dsn=settings.SENTRY_DSN,
        environment=str(settings.ENVIRONMENT),
        release=core.__version__,
        send_default_pii=False,
        traces_sample_rate=settings.SENTRY_TRACES_SAMPLE_RATE,
        before_send=_tagged,  # type: ignore[arg-type]
    )
    logger.info("Errors are reported to Sentry")
