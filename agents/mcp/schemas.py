"""The tools' input schemas, taken from the REST API's own OpenAPI document (drf-spectacular
maps each route's serializer into it): a tool's schema is its twin route's request body, its
query parameters and its path parameters, as one JSON Schema object (OpenAPI 3.0's `nullable`
written as JSON Schema's `null` type, components under `$defs`)."""

import re
from functools import lru_cache
from typing import Any

COMPONENTS = "#/components/schemas/"
DEFS = "#/$defs/"


@lru_cache(maxsize=1)
def openapi_document() -> dict[str, Any]:
    """The document /api/schema/ serves, built once per process (about half a second)."""
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def operation(operation_id: str) -> tuple[str, str, dict[str, Any]]:
    """(path, method, operation) of the REST operation with this id."""
    for path, methods in openapi_document()["paths"].items():
        for method, found in methods.items():
            if isinstance(found, dict) and found.get("operationId") == operation_id:
                return path, method.upper(), found
    raise LookupError(f"No REST operation {operation_id!r}")


def camel(name: str) -> str:
    """A path parameter's name as the API's bodies spell theirs (`post_id` -> `postId`)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def json_schema(schema: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: `nullable` as a `null` type, references to
    components as references to `$defs`."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: json_schema(value) for key, value in schema.items() if key != "nullable"}
    if "$ref" in converted:
        converted["$ref"] = converted["$ref"].replace(COMPONENTS, DEFS)
    if schema.get("nullable"):
        if isinstance(converted.get("type"), str):
            converted["type"] = [converted["type"], "null"]
            if "enum" in converted:
                converted["enum"] = [*converted["enum"], None]
        else:
            converted = {"anyOf": [converted, {"type": "null"}]}
    return converted


def _references(schema: Any) -> set[str]:
    return set(re.findall(r"#/(?:components/schemas|\$defs)/([A-Za-z0-9_.-]+)", repr(schema)))


def definitions(schema: Any) -> dict[str, Any]:
    """The components `schema` refers to, and theirs, as `$defs`."""
    components = openapi_document()["components"]["schemas"]
    found: dict[str, Any] = {}
    pending = _references(schema)
    while pending:
        name = pending.pop()
        if name in found:
            continue
        found[name] = components[name]
        pending |= _references(components[name]) - set(found)
    return {name: json_schema(found[name]) for name in sorted(found)}


def body_schema(found: dict[str, Any]) -> dict[str, Any] | None:
    """The operation's JSON request body schema, its component inlined (one level)."""
    content = (found.get("requestBody") or {}).get("content") or {}
    schema = (content.get("application/json") or {}).get("schema")
    if schema is None:
        return None
    ref = schema.get("$ref", "")
    if ref.startswith(COMPONENTS):
        schema = openapi_document()["components"]["schemas"][ref.removeprefix(COMPONENTS)]
    return dict(schema)


def parameters(found: dict[str, Any], where: str) -> list[dict[str, Any]]:
    return [p for p in found.get("parameters") or () if p.get("in") == where]


def input_schema(operation_id: str) -> tuple[dict[str, Any], dict[str, str], list[str]]:
    """The tool input schema of a REST operation: (schema, path arguments by URL keyword,
    query arguments). Without `$defs`: the caller adds them (`with_definitions`)."""
    _, _, found = operation(operation_id)
    body = body_schema(found) or {"type": "object", "properties": {}, "additionalProperties": False}
    schema: dict[str, Any] = {
        key: value for key, value in body.items() if key not in ("description", "title")
    }
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    required: list[str] = list(schema.get("required") or [])
    path_arguments: dict[str, str] = {}
    for parameter in parameters(found, "path"):
        name = camel(parameter["name"])
        path_arguments[name] = parameter["name"]
        properties[name] = parameter["schema"]
        required.append(name)
    query = []
    for parameter in parameters(found, "query"):
        described = dict(parameter["schema"])
        if parameter.get("description") and "description" not in described:
            described["description"] = parameter["description"]
        properties[parameter["name"]] = described
        query.append(parameter["name"])
        if parameter.get("required"):
            required.append(parameter["name"])
    schema["type"] = "object"
    schema["properties"] = properties
    if required:
        schema["required"] = list(dict.fromkeys(required))
    return json_schema(schema), path_arguments, query


def with_definitions(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with the `$defs` it refers to."""
    defs = definitions(schema)
    return {**schema, "$defs": defs} if defs else schema
