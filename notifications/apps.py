"""App configuration: notifications' part in accounts' writes is registered here."""

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"

    def ready(self) -> None:
        from accounts.hooks import on_email_verified
        from notifications.services import notifications_clear_reclaimed

        on_email_verified(notifications_clear_reclaimed)
