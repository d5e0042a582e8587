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


def test_both_security_schemes_and_each_operation_s_key_scope(api):
    schema = api.get("/api/schema/?format=json").json()
    schemes = schema["components"]["securitySchemes"]
    assert schemes["bearerAuth"]["bearerFormat"] == "JWT"
    assert {k: v for k, v in schemes["apiKeyAuth"].items() if k != "description"} == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
    }
    assert "`posts:write`" in schemes["apiKeyAuth"]["description"]
    assert (schemes["apiKeyBearer"]["type"], schemes["apiKeyBearer"]["scheme"]) == (
        "http",
        "bearer",
    )
    keys_or_session: list[dict[str, list[str]]] = [
        {"apiKeyAuth": []},
        {"apiKeyBearer": []},
        {"bearerAuth": []},
    ]
    posts = schema["paths"]["/api/social/posts"]
    assert (posts["get"]["x-api-key-scopes"], posts["post"]["x-api-key-scopes"]) == (
        ["posts:read"],
        ["posts:write"],
    )
    assert posts["post"]["security"] == keys_or_session
    assert posts["post"]["description"].endswith("API keys: need the scope `posts:write`.")
    assert "403" in posts["post"]["responses"]
    generate = schema["paths"]["/api/proposal/generate"]["post"]
    assert generate["x-api-key-scopes"] == ["ai:write"]
    assert schema["paths"]["/api/auth/me"]["get"]["x-api-key-scopes"] == []  # any key
    for closed in (
        schema["paths"]["/api/auth/api-keys"]["post"],
        schema["paths"]["/api/auth/me"]["delete"],
        schema["paths"]["/api/credits/transactions"]["get"],
    ):
        assert "x-api-key-scopes" not in closed
        assert closed["security"] == [{"bearerAuth": []}]
        assert closed["description"].endswith("API keys: not accepted (403); sign in.")
    created = schema["paths"]["/api/auth/api-keys"]["post"]["responses"]["200"]
    data = created["content"]["application/json"]["schema"]["properties"]["data"]
    assert data == {"$ref": "#/components/schemas/ApiKeyCreated"}
