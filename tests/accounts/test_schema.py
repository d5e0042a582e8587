"""Every auth endpoint is in the OpenAPI schema with its request and response bodies."""

import pytest

pytestmark = pytest.mark.django_db

AUTH_OPERATIONS = {
    "/api/auth/login": ("post", "SignedIn", {"401", "409"}),
    "/api/auth/magic-link": ("post", "MagicLinkOutput", set()),
    "/api/auth/magic-link/verify": ("post", "SignedIn", {"401"}),
    "/api/auth/refresh": ("post", "Session", {"401"}),
    "/api/auth/logout": ("post", "LogoutOutput", {"400", "401"}),
    "/api/auth/me": ("get", "MeOutput", {"401"}),
}


def test_auth_endpoints_are_documented(api):
    schema = api.get("/api/schema/?format=json").json()
    for path, (method, output, errors) in AUTH_OPERATIONS.items():
        operation = schema["paths"][path][method]
        ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok["properties"]["data"] == {"$ref": f"#/components/schemas/{output}"}, path
        assert errors <= set(operation["responses"]), path
        if method == "post":
            body = operation["requestBody"]["content"]["application/json"]["schema"]
            assert body["$ref"].startswith("#/components/schemas/"), path
    assert schema["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    login_body = schema["components"]["schemas"]["LoginInputRequest"]
    assert login_body["required"] == ["email"]
    assert login_body["properties"]["password"]["minLength"] == 6  # PASSWORD_MIN_LENGTH
