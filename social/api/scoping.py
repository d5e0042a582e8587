"""The workspace a hub request acts in, and what the caller's role there allows (workspaces.md
sections 1 and 2; docs/workspaces.md, "The social hub").

Every hub view that reads or writes a workspace's data subclasses `WorkspaceView` and declares
`workspace_actions`, next to `api_key_scopes`: the action of the permission table
(accounts.roles) each HTTP method takes. The check runs before the view, as a permission: the
workspace is resolved (`X-Workspace-Id`, else the personal one; not a member: 404
`workspace_not_found`) and the caller's role checked against the action (403
`permission_denied` naming the roles that may). A method missing from the declaration is
refused, so a new method cannot open by omission; a test walks every route.

What a link opens with no account (a client's approval link, a share link) subclasses
`PublicLinkView` instead: no authentication, no API key, the link's own throttle, and headers
that keep its token out of shared caches, referrers and search engines.
"""

from collections.abc import Mapping
from typing import Any, ClassVar
from uuid import UUID

from drf_spectacular.plumbing import build_basic_type, build_parameter_type
from drf_spectacular.types import OpenApiTypes
from rest_framework.permissions import AllowAny, BasePermission, IsAuthenticated
from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.api.scoping import WORKSPACE_HEADER, WORKSPACE_PARAMETER, workspace_of
from accounts.errors import PermissionRefused
from accounts.models import Membership
from accounts.roles import Action, permission_check, roles_allowed
from accounts.schema import ApiKeyAutoSchema
from accounts.scopes import KEYS_REFUSED

WorkspaceActions = Mapping[str, Action]  # HTTP method -> the action it takes


def workspace_action(view: object, method: str) -> Action | None:
    """The action `method` takes on `view`; None for a view that is not a workspace's. HEAD
    and OPTIONS take what GET takes (reading)."""
    declared: WorkspaceActions | None = getattr(view, "workspace_actions", None)
    if declared is None:
        return None
    method = method.upper()
    if method in ("HEAD", "OPTIONS") and method not in declared:
        return declared.get("GET", Action.READ)
    return declared.get(method)


class WorkspaceAccess(BasePermission):
    """Resolves the request's workspace and checks the caller's role for the method's action
    (after authentication, before throttles and the view)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if getattr(view, "workspace_actions", None) is None:
            return True
        action = workspace_action(view, request.method or "GET")
        if action is None:  # not declared: closed
            raise PermissionRefused()
        permission_check(role=workspace_of(request).role, action=action)
        return True


class WorkspaceSchema(ApiKeyAutoSchema):
    """The operations of a workspace's view: the `X-Workspace-Id` header, the 404 of a
    workspace the caller is not a member of, the 403 of a role that may not, and a sentence
    naming the roles that may."""

    def _action(self) -> Action | None:
        return workspace_action(self.view, self.method)

    def _process_override_parameters(self, direction: str = "request") -> dict[Any, Any]:
        parameters: dict[Any, Any] = super()._process_override_parameters(direction)  # type: ignore[no-untyped-call]
        if self._action() is not None:
            parameters[WORKSPACE_HEADER, "header"] = build_parameter_type(
                name=WORKSPACE_HEADER,
                schema=build_basic_type(OpenApiTypes.UUID) or {},
                location="header",
                required=False,
                description=WORKSPACE_PARAMETER.description,
            )
        return parameters

    def get_description(self) -> str:  # type: ignore[override]
        """The operation's own description, then the roles that may (the API-key sentence,
        ApiKeyAutoSchema's, comes last)."""
        description = str(super().get_description() or "")
        action = self._action()
        if action is None:
            return description
        roles = ", ".join(roles_allowed(action))
        note = f"Workspace roles that may: {roles} (403 `permission_denied` otherwise)."
        return f"{description}\n\n{note}" if description else note

    def _error_statuses(self) -> set[int]:
        statuses = super()._error_statuses()
        if self._action() is not None:
            statuses |= {403, 404}
        return statuses


class WorkspaceView(APIView):
    # A view of a workspace's hub data: `workspace_actions` per method (the module's
    # docstring); `self.membership` (accounts.api.scoping.workspace_of) and `self.workspace_id`
    # are the request's. A comment, not a docstring: the schema would take a docstring here
    # for each view's description.

    workspace_actions: ClassVar[WorkspaceActions]
    permission_classes = [IsAuthenticated, WorkspaceAccess]
    schema = WorkspaceSchema()

    @property
    def membership(self) -> Membership:
        return workspace_of(self.request)

    @property
    def workspace_id(self) -> UUID:
        return self.membership.workspace_id


PRIVATE = "private, no-store"  # what a link shows is for its holder: no shared cache keeps it


class PublicLinkView(APIView):
    # A view a link's token opens with no account: subclasses name their `throttle_classes`
    # (per client address, so no address walks tokens). A comment, not a docstring (as above).

    permission_classes = [AllowAny]
    authentication_classes: list[Any] = []
    api_key_scopes = KEYS_REFUSED

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Cache-Control"] = PRIVATE
        response["Referrer-Policy"] = "no-referrer"  # the token is in the address
        response["X-Robots-Tag"] = "noindex"
        return response
