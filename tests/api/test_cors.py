"""CORS: the front-end origin may call with a Bearer token; other origins get no allow header."""

import pytest

pytestmark = pytest.mark.django_db


def test_allowed_origin_gets_the_header(api, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.com"]
    response = api.get("/api/v1/health", HTTP_ORIGIN="https://app.example.com")
    assert response["Access-Control-Allow-Origin"] == "https://app.example.com"
    assert "RateLimit" in response["Access-Control-Expose-Headers"]


def test_other_origins_get_no_allow_header(api, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.com"]
    response = api.get("/api/v1/health", HTTP_ORIGIN="https://evil.example.net")
    assert "Access-Control-Allow-Origin" not in response


def test_preflight_allows_the_authorization_header(api, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.com"]
    response = api.options(
        "/api/v1/health",
        HTTP_ORIGIN="https://app.example.com",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization, content-type",
    )
    assert response.status_code == 200
    assert "authorization" in response["Access-Control-Allow-Headers"]


def test_default_origin_is_app_url():
    from config.settings import base

    assert base.CORS_ALLOWED_ORIGINS == [base.APP_URL]


@pytest.mark.parametrize(
    "header", ["idempotency-key", "prefer", "last-event-id", "authorization", "x-workspace-id"]
)
def test_preflight_allows_each_documented_request_header(api, settings, header):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.com"]
    response = api.options(
        "/api/social/publish",
        HTTP_ORIGIN="https://app.example.com",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS=f"content-type, {header}",
    )
    assert response.status_code == 200
    allowed = [h.strip() for h in response["Access-Control-Allow-Headers"].split(",")]
    assert header in allowed


def test_documented_response_headers_are_exposed(api, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.com"]
    response = api.get("/api/v1/health", HTTP_ORIGIN="https://app.example.com")
    exposed = {h.strip() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert {"Location", "Idempotent-Replayed", "Retry-After", "RateLimit", "RateLimit-Policy",
            "X-Request-ID"} <= exposed  # fmt: skip


def test_an_async_answer_s_preference_applied_is_readable_cross_origin(
    ada_client, settings, committed
):
    # A browser client that sent `Prefer: respond-async` learns from this header whether it
    # got the 202 it asked for; unexposed, the browser hides it.
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.com"]
    body = {"service": "Django REST API development", "keywords": ["django", "api"]}
    with committed():
        response = ada_client.post("/api/gig/generate", body, format="json",
                                   HTTP_PREFER="respond-async",
                                   HTTP_ORIGIN="https://app.example.com")  # fmt: skip
    assert response.status_code == 202
    assert response["Preference-Applied"] == "respond-async"
    exposed = {h.strip() for h in response["Access-Control-Expose-Headers"].split(",")}
    assert {"Preference-Applied", "Location"} <= exposed
