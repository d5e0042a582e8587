"""One tool call (agents.md sections 2 and 3): its arguments checked against its schema, its
scope, its idempotency key (REST's store, per connection), the agent's policy, then its REST
twin run in process (agents.mcp.dispatch), and the twin's answer as the tool's result. Runs
in a thread of its own: everything here is synchronous Django."""

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from typing import Any

from django.utils import timezone
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError
from jsonschema.exceptions import best_match

from accounts.models import ApiKey
from accounts.scopes import ANY_KEY
from agents.errors import AgentScopeMissing
from agents.mcp import schemas
from agents.mcp.dispatch import Answer, Origin, rest_call
from agents.mcp.tools import IDEMPOTENCY_KEY, TOOLS, Tool, ai_input_schema, shape
from agents.models import AgentConnection
from core.errors import ApplicationError
from core.idempotency import (
    Outcome,
    idempotency_begin,
    idempotency_finish,
    idempotency_release,
    idempotency_stored,
    request_fingerprint,
)
from notifications.events import acting_as, agent_actor

RETRYABLE = frozenset({409, 429, 500, 502, 503, 504})
NOT_KEPT = frozenset({401, 403, 429})  # refusals a retry may not meet again, as REST's
KEY_REFUSALS = {
    Outcome.REUSED: (
        422,
        "idempotency_key_reused",
        "This idempotencyKey was used with other arguments.",
    ),
    Outcome.IN_PROGRESS: (
        409,
        "idempotency_key_in_progress",
        "A call with this idempotencyKey is still running.",
    ),
}


class InvalidArguments(Exception):
    """Not a tool, or arguments its schema refuses: JSON-RPC -32602 naming the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field, self.message = field, message


@dataclass(frozen=True, slots=True)
class Caller:
    key: ApiKey
    connection: AgentConnection
    origin: Origin


@dataclass(frozen=True, slots=True)
class Result:
    """A tool's result: `structured` is structuredContent, `text` its one line."""

    structured: dict[str, Any]
    text: str
    status: int = 200

    @property
    def is_error(self) -> bool:
        return self.status >= 400

    def stored(self) -> bytes:
        return json.dumps(
            {"status": self.status, "structured": self.structured, "text": self.text}
        ).encode()

    @classmethod
    def restored(cls, body: bytes) -> "Result":
        kept = json.loads(body)
        return cls(kept["structured"], kept["text"], kept["status"])


def failure(status: int, code: str, message: str, details: Any = None) -> Result:
    error = {
        "code": code,
        "message": message,
        "details": details or {},
        "retryable": status in RETRYABLE,
    }
    return Result({"error": error}, f"{code}: {message}", status)


def refused(exc: ApplicationError) -> Result:
    return failure(exc.status_code, exc.code, exc.message, exc.details)


def answered(answer: Answer, done: str) -> Result:
    """The twin's envelope as the tool's result: its `data` (a list as `{items, meta}`), or
    its error object."""
    if not answer.ok:
        error = answer.body.get("error") or {}
        message = str(answer.body.get("message") or "The request failed.")
        return failure(
            answer.status, str(error.get("code") or "server_error"), message, error.get("details")
        )
    data = answer.data
    text = str(answer.body.get("message") or done)
    if isinstance(data, list):
        meta = answer.body.get("meta") or {"total": len(data)}
        return Result({"items": data, "meta": meta}, f"{text}: {len(data)} item(s)", answer.status)
    return Result(data if isinstance(data, dict) else {"result": data}, text, answer.status)


# --- Arguments ---------------------------------------------------------------------------------


@cache
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json))


def check(schema: dict[str, Any], arguments: dict[str, Any], prefix: str = "") -> None:
    """Refuse arguments the schema does not allow, naming the first field at fault."""
    error = best_match(_validator(json.dumps(schema, sort_keys=True)).iter_errors(arguments))
    if error is None:
        return
    raise InvalidArguments(_field(error, prefix), error.message)


def _field(error: SchemaError, prefix: str) -> str:
    path = [str(part) for part in error.absolute_path]
    instance = error.instance if isinstance(error.instance, dict) else {}
    if error.validator == "required":
        path += [name for name in error.validator_value if name not in instance][:1]
    elif error.validator == "additionalProperties":
        known = (
            set(error.schema.get("properties") or {}) if isinstance(error.schema, dict) else set()
        )
        path += sorted(set(instance) - known)[:1]
    return ".".join(filter(None, [prefix, *path]))


# --- The call ----------------------------------------------------------------------------------


def tool_call(caller: Caller, name: str, arguments: dict[str, Any]) -> Result:
    """Run tool `name` for the caller (InvalidArguments: not a tool, or arguments refused)."""
    tool = TOOLS.get(name)
    if tool is None:
        raise InvalidArguments("name", f"Unknown tool {name!r}.")
    check(shape(name).schema, arguments)
    granted = list(caller.key.scopes)
    if tool.scope != ANY_KEY and tool.scope not in granted:
        return refused(AgentScopeMissing(details={"required": tool.scope, "granted": granted}))
    key = arguments.get(IDEMPOTENCY_KEY) if tool.writes else None
    arguments = {k: v for k, v in arguments.items() if k != IDEMPOTENCY_KEY}
    if key is None:
        return _acting(tool, caller, arguments)
    begun = idempotency_begin(
        user_id=caller.key.user_id,
        key=f"mcp:{caller.connection.pk}:{hashlib.sha256(key.encode()).hexdigest()}",
        fingerprint=request_fingerprint(
            "TOOL", f"/mcp/{name}", json.dumps(arguments, sort_keys=True).encode()
        ),
    )
    if begun.outcome is Outcome.REPLAY:
        return Result.restored(idempotency_stored(begun.record))
    if begun.outcome in KEY_REFUSALS:
        return failure(*KEY_REFUSALS[begun.outcome])
    try:
        result = _acting(tool, caller, arguments)
    except BaseException:
        idempotency_release(begun.record)
        raise
    if result.status >= 500 or result.status in NOT_KEPT:
        idempotency_release(begun.record)
    else:
        idempotency_finish(begun.record, status=result.status, body=result.stored())
    return result


def _acting(tool: Tool, caller: Caller, arguments: dict[str, Any]) -> Result:
    """The tool run with the agent as the actor of everything it causes."""
    from agents.mcp.runners import RUNNERS, run_twin

    connection = caller.connection
    with acting_as(agent_actor(connection.pk, connection.name)):
        try:
            return RUNNERS.get(tool.name, run_twin)(tool, caller, arguments)
        except ApplicationError as exc:  # the agent's policy refused: nothing was done
            return refused(exc)


# --- The twin ----------------------------------------------------------------------------------


def twin(
    tool: Tool, caller: Caller, arguments: dict[str, Any], *, operation_id: str = ""
) -> Answer:
    """Run the tool's REST twin with these arguments: path ones into its path, query ones
    into its query (a list is paginated: `page=1` when neither `page` nor `limit` is given),
    the rest as its JSON body."""
    path, method, _ = schemas.operation(operation_id or tool.operation_id)
    form = shape(tool.name) if not operation_id else None
    body = dict(arguments)
    for name, keyword in form.path.items() if form else ():
        path = path.replace("{" + keyword + "}", str(body.pop(name)))
    query = {name: body.pop(name) for name in (form.query if form else ()) if name in body}
    if form and "page" in form.query and "page" not in query and "limit" not in query:
        query["page"] = 1
    if method == "GET":
        query.update(body)
        body = {}
    return rest_call(caller.origin, method, path, query=query, body=body or None)


def soon(seconds: int) -> str:
    """A time `seconds` from now, as the schedule takes it."""
    return (timezone.now() + timedelta(seconds=seconds)).isoformat()


__all__ = ["Caller", "InvalidArguments", "Result", "ai_input_schema", "check", "tool_call", "twin"]
