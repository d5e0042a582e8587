"""JSON parsing with hard bounds: size (also for chunked bodies without Content-Length),
nesting depth (a deeply nested body must be a 400, not a RecursionError and a 500), and shape:
every request body of this API is an object, so `null`, a number, a string or an array is a
400 here, before any view or serializer that expects a mapping sees it. Every view parses
JSON through this class (the default, and the media view beside its multipart parser)."""

import json
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from core.api.exceptions import PayloadTooLarge

# Deeper than any request of this API needs; the parser's own recursion ends near 1,000.
MAX_JSON_DEPTH = 32


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _depth(value: Any) -> int:
    """Nesting depth of parsed JSON, measured without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, level + 1) for child in children)
    return deepest


def json_loads(text: str | bytes) -> Any:
    """`json.loads` with NaN/Infinity refused and nesting bounded; ValueError when bad."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels")
    return value


class BoundedJSONParser(JSONParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        limit = settings.API_MAX_BODY_BYTES
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise PayloadTooLarge()
        try:
            text = raw.decode((parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET)
            value = json_loads(text)
        except (UnicodeDecodeError, ValueError) as exc:
            raise ParseError(f"Malformed JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise ParseError("The body must be a JSON object.")
        return value
