"""Every error class leaves in the envelope with its status and code, on both prefixes."""

import json
import logging
from typing import Any

import pytest
from django.test import Client

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]

PREFIXES = ["/api", "/api/v1"]


def error(response) -> tuple[int, str, str]:
    body = response.json()
    assert body["success"] is False
    assert set(body) == {"success", "message", "error"}
    assert set(body["error"]) == {"code", "details"}
    return response.status_code, body["error"]["code"], body["message"]


@pytest.mark.parametrize("prefix", PREFIXES)
def test_validation_error_lists_fields(api, prefix):
    response = api.post(f"{prefix}/_probe/echo", {"name": "toolong", "count": "x"}, format="json")
    assert error(response) == (400, "validation_error", "Validation Failed")
    assert response.json()["error"]["details"] == {
        "name": ["Ensure this field has no more than 5 characters."],
        "count": ["A valid integer is required."],
    }


@pytest.mark.parametrize("prefix", PREFIXES)
def test_success_envelope_carries_message_and_data(api, prefix):
    response = api.post(f"{prefix}/_probe/echo", {"name": "ok", "count": 2}, format="json")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": "Echoed",
        "data": {"name": "ok", "count": 2},
    }


@pytest.mark.parametrize("prefix", PREFIXES)
def test_malformed_json_is_400(api, prefix):
    response = api.generic(
        "POST", f"{prefix}/_probe/echo", '{"name": ', content_type="application/json"
    )
    status, code, message = error(response)
    assert (status, code) == (400, "parse_error")
    assert message.startswith("Malformed JSON")


@pytest.mark.parametrize("prefix", PREFIXES)
def test_nan_is_not_json(api, prefix):
    response = api.generic(
        "POST",
        f"{prefix}/_probe/echo",
        '{"name": "a", "count": NaN}',
        content_type="application/json",
    )
    assert error(response)[:2] == (400, "parse_error")


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_wrong_content_type_is_415(api, prefix, method):
    response = api.generic(method, f"{prefix}/_probe/echo", "name=a", content_type="text/plain")
    assert error(response)[:2] == (415, "unsupported_media_type")


@pytest.mark.parametrize("prefix", PREFIXES)
def test_form_body_is_415(api, prefix):
    response = api.post(f"{prefix}/_probe/echo", {"name": "a", "count": 1}, format="multipart")
    assert error(response)[:2] == (415, "unsupported_media_type")


@pytest.mark.parametrize("prefix", PREFIXES)
def test_body_over_the_limit_is_413(api, prefix, settings):
    settings.API_MAX_BODY_BYTES = 100
    body = json.dumps({"name": "a", "count": 1, "pad": "x" * 200})
    response = api.generic("POST", f"{prefix}/_probe/echo", body, content_type="application/json")
    status, code, _ = error(response)
    assert (status, code) == (413, "payload_too_large")
    assert response.json()["error"]["details"] == {"maxBytes": 100}


def test_parser_bounds_bodies_without_content_length(settings):
    """A chunked body declares no length: the parser itself stops reading past the limit."""
    import io

    from core.api.exceptions import PayloadTooLarge
    from core.api.parsers import BoundedJSONParser

    settings.API_MAX_BODY_BYTES = 10
    with pytest.raises(PayloadTooLarge):
        BoundedJSONParser().parse(io.BytesIO(b'{"pad": "xxxxxxxxxxxxxxxx"}'))
    assert BoundedJSONParser().parse(io.BytesIO(b'{"a": 1}')) == {"a": 1}


@pytest.mark.parametrize("prefix", PREFIXES)
def test_wrong_method_is_405(api, prefix):
    response = api.delete(f"{prefix}/_probe/echo")
    assert error(response) == (405, "method_not_allowed", 'Method "DELETE" not allowed.')
    assert response["Allow"] == "POST, OPTIONS"


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("debug", [False, True])
def test_unknown_path_is_json_404(api, prefix, debug, settings):
    settings.DEBUG = debug
    response = api.get(f"{prefix}/no/such/route")
    assert error(response) == (
        404,
        "not_found",
        f"No API route matches GET {prefix}/no/such/route.",
    )


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_unknown_path_is_json_404_for_every_method(prefix, method):
    # A browser-like client: CSRF enforced, as a real request with no token would meet it.
    client = Client(enforce_csrf_checks=True)
    response = client.generic(method, f"{prefix}/no/such/route", "{}", "application/json")
    assert error(response) == (
        404,
        "not_found",
        f"No API route matches {method} {prefix}/no/such/route.",
    )


@pytest.mark.parametrize("prefix", PREFIXES)
def test_http404_and_permission_denied(api, prefix):
    assert error(api.get(f"{prefix}/_probe/raise/missing")) == (404, "not_found", "Not found.")
    assert error(api.get(f"{prefix}/_probe/raise/forbidden"))[:2] == (403, "permission_denied")


@pytest.mark.parametrize("prefix", PREFIXES)
def test_application_error_keeps_its_code_and_details(api, prefix):
    response = api.get(f"{prefix}/_probe/raise/conflict")
    assert error(response) == (409, "conflict", "Already connected.")
    assert response.json()["error"]["details"] == {"accountId": "abc"}


@pytest.mark.parametrize("prefix", PREFIXES)
def test_throttled_is_429_with_retry_after(api, prefix):
    response = api.get(f"{prefix}/_probe/raise/throttled")
    assert error(response)[:2] == (429, "rate_limited")
    assert response["Retry-After"] == "7"


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("debug", [False, True])
def test_unhandled_error_is_500_without_internals(api, prefix, debug, settings, caplog):
    settings.DEBUG = debug
    with caplog.at_level(logging.ERROR):
        response = api.get(f"{prefix}/_probe/raise/boom")
    assert response.json() == {
        "success": False,
        "message": "Internal server error.",
        "error": {"code": "server_error", "details": {}},
    }
    assert response.status_code == 500
    logged = [r for r in caplog.records if r.exc_info]
    assert logged, "the 500 must be logged with its traceback"
    assert "secret internals" in str(logged[0].exc_info[1])


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("debug", [False, True])
def test_plain_django_failure_is_json_not_html(prefix, debug, settings):
    settings.DEBUG = debug
    client = Client(raise_request_exception=False)
    response = client.get(f"{prefix}/_probe/django-boom")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert error(response)[:2] == (500, "server_error")
    assert b"Traceback" not in response.content


@pytest.mark.parametrize("depth", [33, 1000, 100_000])
@pytest.mark.parametrize(
    "path",
    ["/api/auth/login", "/api/auth/magic-link", "/api/auth/refresh", "/api/seo/audit"],
)
def test_deeply_nested_json_is_a_400_not_a_500(api, path, depth):
    from accounts.services.sessions import session_issue
    from accounts.services.users import user_create

    token = session_issue(user=user_create(email="deep@example.com")).token
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")  # the AI tools need a user
    body = '{"email": ' + "[" * depth + "]" * depth + "}"
    response = api.generic("POST", path, body, content_type="application/json")
    status, code, message = error(response)
    assert (status, code) == (400, "parse_error")
    assert message == "Malformed JSON: nested deeper than 32 levels"


def test_nesting_up_to_the_limit_is_parsed(api):
    body = '{"name": "ok", "count": 1, "extra": ' + "[" * 31 + "]" * 31 + "}"
    response = api.generic("POST", "/api/_probe/echo", body, content_type="application/json")
    assert response.status_code == 200


def test_an_api_500_is_logged_once(api):
    # django.request does not propagate (LOGGING), so listen on it and on our handler's logger.
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep()
    loggers = [logging.getLogger("django.request"), logging.getLogger("core.api.exceptions")]
    for logger in loggers:
        logger.addHandler(keep)
    try:
        assert api.get("/api/_probe/raise/boom").status_code == 500
    finally:
        for logger in loggers:
            logger.removeHandler(keep)
    errors = [r for r in records if r.levelno >= logging.ERROR]
    assert len(errors) == 1
    assert errors[0].exc_info is not None


# --- Input at the edges of what Python reads: a 400, never a 500 -----------------------------


@pytest.mark.parametrize("cursor", ["²", "٣", "1²"])
def test_an_event_cursor_of_other_digits_is_400(ada_client, cursor):
    # str.isdigit() is true of these; int() refuses "²" (a 500 before).
    response = ada_client.get("/api/events", {"after": cursor})
    assert error(response)[:2] == (400, "invalid_cursor")


def test_a_last_event_id_of_other_digits_is_ignored():
    from notifications.api.stream import _last_event_id

    assert _last_event_id("²", "") is None
    assert _last_event_id("", "٣") is None
    assert _last_event_id("42", "") == 42


@pytest.fixture
def devto_account(ada):
    from social.models import SocialAccount

    return SocialAccount.objects.create(
        user=ada,
        workspace=ada.personal_workspace,
        provider="devto",
        provider_user_id="1",
        username="ada",
        access_token="key",
    )


def schedule_body(account: Any, **fields: Any) -> dict[str, Any]:
    return {"title": "Launch", "content": "Launch day", "accountIds": [str(account.pk)], **fields}


@pytest.mark.parametrize(
    ("when", "zone", "says"),
    [
        ("9999-12-31T23:59:59", "America/New_York", "At most 365 days ahead."),
        ("9999-12-31T23:59:59-05:00", None, "At most 365 days ahead."),
        ("0001-01-01T00:00:00+05:00", None, "The time is in the past."),
        ("0001-01-01T00:00:00", "Asia/Tokyo", "The time is in the past."),
    ],
)
def test_scheduling_at_the_ends_of_the_calendar_is_400(ada_client, devto_account, when, zone,
                                                        says):  # fmt: skip
    from social.models import Post

    extra = {"timezone": zone} if zone else {}
    response = ada_client.post(
        "/api/social/schedule",
        schedule_body(devto_account, scheduledTime=when, **extra),
        format="json",
    )
    assert error(response)[:2] == (400, "validation_error")
    assert response.json()["error"]["details"] == {"scheduledTime": [says]}
    response = ada_client.post(
        "/api/social/schedule",
        {"content": "Launch day", "platforms": ["devto"], "scheduledAt": when},
        format="json",
    )
    assert error(response)[:2] == (400, "validation_error")
    assert response.json()["error"]["details"] == {"scheduledAt": [says]}
    assert not Post.objects.exists()


def in_two_days() -> str:
    from datetime import timedelta

    from django.utils import timezone

    return (timezone.now() + timedelta(days=2)).replace(microsecond=0).isoformat()


def test_moving_a_record_to_year_9999_is_400(ada_client, devto_account):
    from social.models import ScheduledRecord

    response = ada_client.post(
        "/api/social/schedule",
        schedule_body(devto_account, scheduledTime=in_two_days()),
        format="json",
    )
    assert response.status_code == 200, response.content
    record = ScheduledRecord.objects.get()
    before = record.scheduled_time
    response = ada_client.patch(
        f"/api/social/schedule/{record.pk}",
        {"scheduledTime": "9999-12-31T23:59:59", "timezone": "America/New_York"},
        format="json",
    )
    assert error(response)[:2] == (400, "validation_error")
    record.refresh_from_db()
    assert record.scheduled_time == before


@pytest.mark.parametrize("until", ["9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00"])
def test_a_recurrence_until_past_the_calendar_is_400(ada_client, devto_account, until):
    from social.models import Post

    response = ada_client.post(
        "/api/social/schedule",
        schedule_body(
            devto_account,
            scheduledTime=in_two_days(),
            recurrence={"rule": "FREQ=DAILY", "until": until},
        ),
        format="json",
    )
    assert error(response)[:2] == (400, "validation_error")
    assert "recurrence.until" in response.json()["error"]["details"]
    assert not Post.objects.exists()
