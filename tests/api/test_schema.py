"""The OpenAPI schema describes real responses; Swagger UI is served by the app itself."""

from collections.abc import Iterator
from typing import Any

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(api):
    response = api.get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def test_schema_is_openapi_3_with_the_package_version(schema):
    import config

    assert schema["openapi"].startswith("3.")
    assert schema["info"]["version"] == config.__version__


def test_every_delete_documents_the_answer_it_gives(schema):
    # Every DELETE answers 200 with the envelope (a confirmation, or the cancelled record):
    # none answers 204, which a generated client would take for "no body".
    documented = {
        path: sorted(code for code in operations["delete"]["responses"] if code.startswith("2"))
        for path, operations in schema["paths"].items()
        if "delete" in operations
    }
    assert len(documented) >= 10
    assert {path: codes for path, codes in documented.items() if codes != ["200"]} == {}


def test_versioned_twins_are_documented_once(schema):
    assert "/api/health" in schema["paths"]
    assert "/api/v1/health" in schema["paths"]  # its own shape, so its own entry
    assert not [p for p in schema["paths"] if p.startswith("/api/v1/") and p != "/api/v1/health"]


def test_envelope_and_errors_are_in_the_schema(schema):
    v1 = schema["paths"]["/api/v1/health"]["get"]["responses"]
    ok = v1["200"]["content"]["application/json"]["schema"]
    assert ok["required"] == ["success", "data"]
    assert ok["properties"]["data"] == {"$ref": "#/components/schemas/HealthV1Output"}
    assert v1["429"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorEnvelope"
    }
    assert "Retry-After" in v1["429"]["headers"]
    bare = schema["paths"]["/api/health"]["get"]["responses"]
    assert set(bare) >= {"200", "503", "429", "500"}
    assert bare["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/HealthOutput"
    }


def test_swagger_ui_uses_no_cdn(api):
    response = api.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn" not in html.lower()


def test_sidecar_assets_are_served(api):
    from django.test import Client

    response = Client().get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert response.status_code == 200


# --- The schema carries the rules the server applies ---------------------------------------

# Free text the server takes as it comes (bounded, or its own format where it has one).
QUERY_TEXT = {("/api/events/stream", "ticket")}


def query_parameters(schema: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    yield path, method, parameter


def test_every_query_parameter_is_typed_as_the_server_parses_it(schema):
    loose = [
        (path, method, parameter["name"])
        for path, method, parameter in query_parameters(schema)
        for branch in parameter["schema"].get("oneOf", [parameter["schema"]])
        if branch.get("type", "string") == "string"
        and "$ref" not in branch
        and not {"enum", "format", "pattern", "maxLength"} & set(branch)
        and (path, parameter["name"]) not in QUERY_TEXT
    ]
    assert loose == []


def test_filters_are_declared_once_by_the_serializers_that_parse_them(schema):
    by_name = {
        (path, parameter["name"]): parameter["schema"]
        for path, _, parameter in query_parameters(schema)
    }
    assert by_name[("/api/social/posts", "campaignId")]["format"] == "uuid"
    assert by_name[("/api/social/schedule", "from")]["format"] == "date-time"
    assert by_name[("/api/social/analytics", "to")]["format"] == "date"
    assert by_name[("/api/webhooks/deliveries", "endpointId")]["format"] == "uuid"
    assert by_name[("/api/social/best-times", "accountId")]["format"] == "uuid"
    assert by_name[("/api/notifications", "read")]["type"] == "boolean"
    assert by_name[("/api/events", "limit")]["minimum"] == 1
    assert by_name[("/api/events", "limit")]["maximum"] == 500
    assert "pattern" in by_name[("/api/events", "after")]["oneOf"][0]


def request_bodies(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, component in schema["components"]["schemas"].items():
        if name.endswith("Request"):
            yield name, component


def test_every_request_body_refuses_keys_it_does_not_declare(schema):
    # The payment provider's event is its own format, read as it comes (billing/api.py).
    open_bodies = {"PaymentWebhookInputRequest"}
    assert [
        name
        for name, component in request_bodies(schema)
        if name not in open_bodies and component.get("additionalProperties") is not False
    ] == []


def test_every_text_field_of_a_body_is_bounded_and_patterned(schema):
    """What DRF's CharField refuses (a NUL, blank text once trimmed, more than max_length) is
    in the schema, so a generated client refuses it too."""

    def branches(prop: dict[str, Any]) -> list[dict[str, Any]]:
        return prop.get("oneOf", [prop])

    loose = []
    for name, component in request_bodies(schema):
        for field, prop in component.get("properties", {}).items():
            for branch in branches(prop):
                if branch.get("type") != "string" or branch.get("maxLength") == 0:
                    continue
                if not {"enum", "format", "pattern"} & set(branch):
                    loose.append((name, field))
    assert loose == []


def test_conditional_rules_are_in_the_schema(schema):
    components = schema["components"]["schemas"]
    assert components["PostListInputRequest"]["anyOf"] == [
        {"required": ["content"]},
        {"required": ["id"]},
    ]
    assert components["MeUpdateRequest"]["minProperties"] == 1
    generate = components["SocialGenerateInputRequest"]["oneOf"]
    assert [branch["required"] for branch in generate] == [["prompt"], ["content"]]
    # A PATCH body's required fields stay required (no view validates a PATCH as partial).
    assert components["ScheduleDetailMoveRequest"]["required"] == ["scheduledTime"]


def test_a_body_its_rules_ask_for_is_required_and_filter_errors_are_documented(schema):
    components = schema["components"]["schemas"]
    assert components["CampaignListInputRequest"]["anyOf"] == [
        {"required": ["name"]},
        {"required": ["id"]},
    ]
    assert schema["paths"]["/api/auth/me"]["patch"]["requestBody"]["required"] is True
    budget = components["CampaignListInputRequest"]["properties"]["budget"]
    assert (budget["type"], budget["minimum"], budget["multipleOf"]) == ("number", 0, 0.01)
    # A filter the server refuses is a documented 400.
    assert "400" in schema["paths"]["/api/events"]["get"]["responses"]
    assert "401" in schema["paths"]["/api/social/scheduler/run"]["post"]["responses"]
