"""App configuration: aitools' part in accounts' writes is registered here."""

from django.apps import AppConfig


class AitoolsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "aitools"

    def ready(self) -> None:
        from accounts.hooks import on_email_verified, on_user_erased
        from aitools.services import history_clear_reclaimed, history_erase

        on_email_verified(history_clear_reclaimed)
        on_user_erased(history_erase)
