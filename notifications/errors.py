"""Errors of the notifications domain, in the one error contract."""

from config.errors import NotFoundError


class NotificationNotFound(NotFoundError):
    message = "Notification not found."
