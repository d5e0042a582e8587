"""Every generator is in the OpenAPI schema with its input, its answer and its errors."""

import pytest

from aitools.tools import TOOLS
from tests.aitools.conftest import BODIES

pytestmark = pytest.mark.django_db


def test_generators_are_documented(api):
    schema = api.get("/api/schema/?format=json").json()
    for tool, (path, _) in BODIES.items():
        operation = schema["paths"][path]["post"]
        assert operation["operationId"] == tool
        assert {"200", "202", "400", "401", "402", "429", "502"} <= set(operation["responses"])
        ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok["required"] == ["success", "data", "meta"]
        assert set(ok["properties"]["meta"]["properties"]) == {"tokensUsed", "provider"}
        body = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        name = body.rsplit("/", 1)[1]
        assert set(schema["components"]["schemas"][name]["properties"]) == set(
            TOOLS[tool].input().fields
        )
