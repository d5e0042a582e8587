"""App configuration: aitools' part in accounts' writes and in the event channel."""

from django.apps import AppConfig

KEPT_AT_TAKEOVER = "what was written stays: it may be the owner's own (docs/accounts.md)"


class AitoolsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "aitools"

    def ready(self) -> None:
        from accounts.hooks import user_data
        from aitools.models import Generation, Gig, Proposal
        from aitools.services import generations_notify, history_erase
        from notifications.events import subscribe

        for model in (Generation, Gig, Proposal):
            user_data(model, takeover=KEPT_AT_TAKEOVER, erasure=history_erase)
        for event in ("generation.completed", "generation.failed"):
            subscribe(event, generations_notify)
