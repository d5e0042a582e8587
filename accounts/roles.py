"""What each role may do in a workspace: the contract's table (workspaces.md section 2) as data,
and the one check every service runs against it.

A row is an action; its roles may do it always, its `named` roles only when a request names
them (an editor named as approver, a client asked for approval). Nothing else decides a role's
rights: services call `permission_check` with the caller's role, never compare roles.
"""

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from accounts.errors import PermissionRefused
from accounts.models import WorkspaceRole

OWNER, ADMIN, EDITOR, VIEWER, CLIENT = (
    WorkspaceRole.OWNER,
    WorkspaceRole.ADMIN,
    WorkspaceRole.EDITOR,
    WorkspaceRole.VIEWER,
    WorkspaceRole.CLIENT,
)


class Action(StrEnum):
    READ = "read"  # posts, records, calendar, queue, analytics
    READ_SHARED = "read_shared"  # posts sent to the caller for approval, reports
    WRITE = "write"  # posts, media, campaigns, queue; preview
    PUBLISH = "publish"  # publish and schedule (when no approval is required)
    APPROVE = "approve"  # approve or reject
    MANAGE = "manage"  # connect or disconnect accounts, settings, webhooks, API keys
    MEMBERS = "members"  # members and invitations (touching an owner also takes OWN)
    ACTIVITY = "activity"  # the workspace's activity: who did what
    OWN = "own"  # delete the workspace, make another owner
    # Where the contract is silent (docs/workspaces.md): the team is visible to the team,
    # not to clients, who are outside it.
    MEMBERS_READ = "members_read"
    # Share links (workspaces.md section 4: "owner, admin"): a calendar or report for anyone
    # who holds the link, outside the team.
    SHARE = "share"


@dataclass(frozen=True, slots=True)
class Rule:
    roles: frozenset[WorkspaceRole]
    named: frozenset[WorkspaceRole] = frozenset()  # only when the request names the member


PERMISSIONS = MappingProxyType(
    {
        Action.READ: Rule(frozenset({OWNER, ADMIN, EDITOR, VIEWER})),
        Action.READ_SHARED: Rule(frozenset({OWNER, ADMIN, EDITOR, VIEWER, CLIENT})),
        Action.WRITE: Rule(frozenset({OWNER, ADMIN, EDITOR})),
        Action.PUBLISH: Rule(frozenset({OWNER, ADMIN, EDITOR})),
        Action.APPROVE: Rule(frozenset({OWNER, ADMIN}), named=frozenset({EDITOR, CLIENT})),
        Action.MANAGE: Rule(frozenset({OWNER, ADMIN})),
        Action.MEMBERS: Rule(frozenset({OWNER, ADMIN})),
        Action.ACTIVITY: Rule(frozenset({OWNER, ADMIN})),
        Action.OWN: Rule(frozenset({OWNER})),
        Action.MEMBERS_READ: Rule(frozenset({OWNER, ADMIN, EDITOR, VIEWER})),
        Action.SHARE: Rule(frozenset({OWNER, ADMIN})),
    }
)


def roles_allowed(action: Action, *, named: bool = False) -> list[str]:
    """The roles that may do `action` (with the named ones when the request names the
    caller), in the roles' own order."""
    rule = PERMISSIONS[action]
    allowed = rule.roles | rule.named if named else rule.roles
    return [role.value for role in WorkspaceRole if role in allowed]


def permission_check(*, role: str, action: Action, named: bool = False) -> None:
    """403 `permission_denied` unless `role` may do `action`; `details.requiredRoles` names the
    roles that may (those who may when named included: what the caller would need)."""
    if role in roles_allowed(action, named=named):
        return
    raise PermissionRefused(details={"requiredRoles": roles_allowed(action, named=True)})


def may(*, role: str, action: Action, named: bool = False) -> bool:
    return role in roles_allowed(action, named=named)
