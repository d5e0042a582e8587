"""Errors of the notifications domain, in the one error contract."""

from core.errors import ApplicationError, ConflictError, NotFoundError


class NotificationNotFound(NotFoundError):
    message = "Notification not found."


class WebhookEndpointNotFound(NotFoundError):
    message = "Webhook endpoint not found."


class WebhookEndpointLimitReached(ConflictError):
    code = "webhook_endpoint_limit_reached"
    message = "You have as many webhook endpoints as allowed. Delete one first."


class InvalidWebhookUrl(ApplicationError):
    code = "invalid_webhook_url"
    message = "Webhook URLs must use https and reach a public internet address."


class WebhookDeliveryNotFound(NotFoundError):
    message = "Webhook delivery not found."


class InvalidCursor(ApplicationError):
    code = "invalid_cursor"
    message = "The cursor names no event of yours: send a nextCursor, a live feed id or an id."
