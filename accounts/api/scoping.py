"""The workspace a request acts in: `X-Workspace-Id`, or the caller's personal workspace
(docs/workspaces.md, "Scoping"). What the social hub's views call; the resolving itself is
accounts.services.workspaces.workspace_resolve.
"""

from typing import Any
from uuid import UUID

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.request import Request

from accounts.authentication import request_user
from accounts.models import Membership, Workspace
from accounts.services.workspaces import workspace_resolve

WORKSPACE_HEADER = "X-Workspace-Id"
# The header in a scoped view's schema: `@extend_schema(parameters=[WORKSPACE_PARAMETER])`.
WORKSPACE_PARAMETER = OpenApiParameter(
    WORKSPACE_HEADER,
    OpenApiTypes.UUID,
    OpenApiParameter.HEADER,
    required=False,
    description=(
        "The workspace to act in (a member's); absent: the caller's personal workspace. Not a "
        "member, or not an id: 404 `workspace_not_found`."
    ),
)
_RESOLVED = "_workspace_membership"  # the request's attribute holding the answer


def credential_workspace_id(auth: Any) -> UUID | None:
    """The workspace the request's credential is bound to: an API key's own, read from its
    `workspace_id` once keys carry one; a session is bound to none."""
    workspace_id = getattr(auth, "workspace_id", None)
    return workspace_id if isinstance(workspace_id, UUID) else None


def workspace_of(request: Request) -> Membership:
    """The caller's membership of the workspace this request acts in (`.workspace` is the
    workspace; `.role` what they may do there: accounts.roles). Resolved once per request.

    No header: the personal workspace. A malformed id, or a workspace the caller is not a
    member of: 404 `workspace_not_found`. A credential bound to a workspace (an API key)
    acts in it, and naming another is 403 `permission_denied`.
    """
    resolved = getattr(request, _RESOLVED, None)
    if isinstance(resolved, Membership):
        return resolved
    membership = workspace_resolve(
        user=request_user(request),
        requested=request.headers.get(WORKSPACE_HEADER),
        bound=credential_workspace_id(request.auth),
    )
    setattr(request, _RESOLVED, membership)
    return membership


class WorkspaceScoped:
    """For a view whose data belongs to a workspace: `self.membership` is the caller's
    membership of the request's workspace, `self.workspace` the workspace."""

    request: Any  # the view's: DRF's Request once the view runs

    @property
    def membership(self) -> Membership:
        return workspace_of(self.request)

    @property
    def workspace(self) -> Workspace:
        return self.membership.workspace
