"""App configuration: notifications' part in accounts' writes is registered here."""

from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"

    def ready(self) -> None:
        from accounts.hooks import on_email_verified, on_user_erased
        from notifications.services import notifications_clear_reclaimed, notifications_erase

        on_email_verified(notifications_clear_reclaimed)
        on_user_erased(notifications_erase)

        from notifications.outbox import outbox_consumer
        from notifications.webhooks import deliveries_create, deliveries_create_many

        outbox_consumer("webhooks", deliveries_create, handle_many=deliveries_create_many)
