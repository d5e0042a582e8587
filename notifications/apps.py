"""App configuration: notifications' part in accounts' writes is registered here."""

from django.apps import AppConfig

KEPT_AT_TAKEOVER = "what was written stays: it may be the owner's own (docs/accounts.md)"


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"

    def ready(self) -> None:
        from accounts.hooks import (
            on_account_reclaimed,
            on_api_key_created,
            on_membership_changed,
            on_sessions_revoked,
            user_data,
        )
        from notifications.models import (
            LiveEvent,
            LiveTicket,
            Notification,
            NotificationCounter,
            OutboxEvent,
            WebhookEndpoint,
        )
        from notifications.services.center import (
            account_reclaimed_notify,
            notifications_erase,
            tickets_forget,
        )
        from notifications.services.livefeed import live_membership_changed, live_sessions_revoked
        from notifications.services.security import api_key_created_notify
        from notifications.services.webhooks import endpoints_remove

        for model in (Notification, NotificationCounter, OutboxEvent, LiveEvent):
            user_data(model, takeover=KEPT_AT_TAKEOVER, erasure=notifications_erase)
        user_data(LiveTicket, takeover=tickets_forget, erasure=notifications_erase)
        # Endpoints send the user's data out: none survives a takeover or an erasure.
        user_data(WebhookEndpoint, takeover=endpoints_remove, erasure=endpoints_remove)
        on_account_reclaimed(account_reclaimed_notify)
        on_sessions_revoked(live_sessions_revoked)
        on_membership_changed(live_membership_changed)
        on_api_key_created(api_key_created_notify)

        import notifications.tasks  # noqa: F401 (registers the tasks its services queue by name)
        from notifications.events import EVENTS, present, subscribe
        from notifications.output import notification_created_data
        from notifications.services.livefeed import LIVE_KIND, live_record
        from notifications.services.outbox import outbox_record

        # A notification on the live feed as the API shows it (the center hands its values).
        present("notification.created", notification_created_data)
        # The recorders, in the emitter's transaction: the live feed's row of every public
        # event and of the internal ones it shows, then the outbox's row of every public one
        # (it keeps the live row's id).
        for event in sorted(EVENTS | set(LIVE_KIND)):
            subscribe(event, live_record, records=True)
        for event in sorted(EVENTS):
            subscribe(event, outbox_record, records=True)

        from notifications.services.outbox import outbox_consumer
        from notifications.services.webhooks import (
            deliveries_create,
            deliveries_create_many,
            deliveries_wanted,
        )

        outbox_consumer(
            "webhooks",
            deliveries_create,
            handle_many=deliveries_create_many,
            wants=deliveries_wanted,
        )
