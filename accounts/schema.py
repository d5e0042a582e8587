"""OpenAPI: the session (JWT) and API-key security schemes, and each operation's key scope
(the extensions are loaded by AccountsConfig.ready; the AutoSchema is DEFAULT_SCHEMA_CLASS)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension

from accounts.authentication import ApiKeyAuthentication
from accounts.scopes import ANY_KEY, Scope, key_scope
from core.api.schema import EnvelopeAutoSchema

API_KEY_SCHEMES = ("apiKeyAuth", "apiKeyBearer")
SCOPES_EXTENSION = "x-api-key-scopes"


class BearerAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.BearerAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "The access token from login, refresh or magic-link verification.",
        }


def _scopes_list() -> str:
    return "; ".join(f"`{scope.value}`: {scope.label.lower()}" for scope in Scope)


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    """Two ways to send one key. An operation lists them only when keys may call it; its
    `x-api-key-scopes` names the scope the key needs (OpenAPI 3.0 keeps scope lists for OAuth
    schemes, so they cannot go in the security requirement itself)."""

    target_class = "accounts.authentication.ApiKeyAuthentication"
    name = list(API_KEY_SCHEMES)

    def get_security_requirement(self, auto_schema: Any) -> Any:
        # None (allowed by drf-spectacular, not by its annotation): no requirement here.
        if key_scope(auto_schema.view, auto_schema.method) is None:
            return None
        return [{name: []} for name in API_KEY_SCHEMES]

    def get_security_definition(self, auto_schema: Any) -> list[dict[str, Any]]:
        about = (
            "A personal API key (`fgp_` and 40 characters; POST /api/auth/api-keys, "
            "docs/api-keys.md). Each operation's `x-api-key-scopes` names the scope it needs "
            f"(empty: any key); scopes: {_scopes_list()}."
        )
        return [
            {"type": "apiKey", "in": "header", "name": "X-API-Key", "description": about},
            {
                "type": "http",
                "scheme": "bearer",
                "bearerFormat": "API key (fgp_...)",
                "description": "The same API key sent as `Authorization: Bearer fgp_...`.",
            },
        ]


class ApiKeyAutoSchema(EnvelopeAutoSchema):
    """The envelope's schema, plus what an API key needs on each operation: the
    `x-api-key-scopes` extension, a sentence at the end of its description, and the 403 of a
    key refused."""

    def _reads_keys(self) -> bool:
        return any(
            isinstance(auth, ApiKeyAuthentication) for auth in self.view.get_authenticators()
        )

    def api_key_note(self) -> str | None:
        """What an API key needs here, in a sentence (None: the view reads no keys)."""
        if not self._reads_keys():
            return None
        needed = key_scope(self.view, self.method)
        if needed is None:
            return "API keys: not accepted (403); sign in."
        if needed == ANY_KEY:
            return "API keys: any key, whatever its scopes."
        return f"API keys: need the scope `{needed}`."

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation: dict[str, Any] | None = super().get_operation(*args, **kwargs)
        note = self.api_key_note()
        if operation is None or note is None:
            return operation
        description = operation.get("description")
        operation["description"] = f"{description}\n\n{note}" if description else note
        needed = key_scope(self.view, self.method)
        if needed is not None:
            operation[SCOPES_EXTENSION] = [] if needed == ANY_KEY else [needed]
        return operation

    def _error_statuses(self) -> set[int]:
        statuses = super()._error_statuses()
        if self._reads_keys():
            statuses.add(403)
        return statuses
