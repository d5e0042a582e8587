"""Errors of the agents domain, in the one error contract."""

from http import HTTPStatus

from core.errors import ApplicationError, NotFoundError


class AgentNotFound(NotFoundError):
    message = "No such agent connection."


class AgentBudgetExceeded(ApplicationError):
    """A daily budget of the connection's policy would be passed: nothing was done."""

    status_code = HTTPStatus.TOO_MANY_REQUESTS
    code = "agent_budget_exceeded"
    message = "This agent has used its daily budget."


class AgentAccountRefused(ApplicationError):
    """A social account outside the connection's `accountIds`."""

    status_code = HTTPStatus.FORBIDDEN
    code = "permission_denied"
    message = "This agent may not post to these accounts."


class AgentScopeMissing(ApplicationError):
    """A tool outside the connection's scopes: REST's 403 `insufficient_scope`."""

    status_code = HTTPStatus.FORBIDDEN
    code = "insufficient_scope"
    message = "This API key lacks the scope this operation needs."
