"""The OpenAPI schema describes real responses; Swagger UI is served by the app itself."""

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
