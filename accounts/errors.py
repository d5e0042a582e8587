"""Errors of the accounts domain, in the one error contract."""

from http import HTTPStatus

from core.errors import INVALID_TOKEN_MESSAGE, ApplicationError, ConflictError, NotFoundError


class InvalidSession(ApplicationError):
    status_code = HTTPStatus.UNAUTHORIZED
    code = "invalid_token"
    message = INVALID_TOKEN_MESSAGE


class InvalidCredentials(ApplicationError):
    status_code = HTTPStatus.UNAUTHORIZED
    code = "invalid_credentials"
    message = "Invalid e-mail or password."


class EmailBelongsToAnotherUser(ConflictError):
    message = "This e-mail address belongs to another account."


class ReauthenticationRequired(ApplicationError):
    status_code = HTTPStatus.FORBIDDEN
    code = "reauthentication_required"
    message = "Sign in again with a magic link, then erase the account within 10 minutes."


class ApiKeyNotFound(NotFoundError):
    message = "No such API key."


class ApiKeyLimitReached(ConflictError):
    code = "api_key_limit_reached"
    message = "You have as many live API keys as allowed. Revoke one first."


# --- Workspaces (docs/workspaces.md) ---------------------------------------------------------


class WorkspaceNotFound(NotFoundError):
    """No such workspace, or one the caller is not a member of: never told apart."""

    code = "workspace_not_found"
    message = "No such workspace."


class PermissionRefused(ApplicationError):
    """The caller's role may not do this; `details.requiredRoles` names the roles that may."""

    status_code = HTTPStatus.FORBIDDEN
    code = "permission_denied"
    message = "Your role in this workspace does not allow this."


class PersonalWorkspace(ConflictError):
    code = "personal_workspace"
    message = "A personal workspace cannot be shared, left or deleted."


class WorkspaceLimitReached(ConflictError):
    code = "workspace_limit"
    message = "You own as many workspaces as allowed. Delete one first."


class LastOwner(ConflictError):
    code = "last_owner"
    message = "A workspace keeps at least one owner: make another member owner first."


class MemberLimitReached(ConflictError):
    code = "member_limit"
    message = "This workspace has as many members and pending invitations as allowed."


class AlreadyMember(ConflictError):
    code = "already_member"
    message = "This address already belongs to a member of the workspace."


class MemberNotFound(NotFoundError):
    message = "No such member in this workspace."


class InvitationNotFound(NotFoundError):
    message = "No such pending invitation."


class InvalidInvitation(ApplicationError):
    code = "invalid_invitation"
    message = "This invitation is invalid, expired, revoked or already used."


class InvitationEmailMismatch(ApplicationError):
    status_code = HTTPStatus.FORBIDDEN
    code = "invitation_email_mismatch"
    message = "This invitation was sent to another e-mail address. Sign in with that one."
