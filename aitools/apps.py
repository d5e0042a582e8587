"""App configuration: aitools' part in accounts' writes is registered here."""

from django.apps import AppConfig

KEPT_AT_TAKEOVER = "what was written stays: it may be the owner's own (docs/accounts.md)"


class AitoolsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "aitools"

    def ready(self) -> None:
        from accounts.hooks import user_data
        from aitools.models import Generation, Gig, Proposal
        from aitools.services import history_erase

        for model in (Generation, Gig, Proposal):
            user_data(model, takeover=KEPT_AT_TAKEOVER, erasure=history_erase)
