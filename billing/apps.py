"""App configuration: billing's part in accounts' writes and in the event channel."""

from django.apps import AppConfig

LEDGER = "the ledger and payments keep anonymous references (docs/billing.md)"


class BillingConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "billing"

    def ready(self) -> None:
        from accounts.hooks import on_email_verified, on_user_created, user_data
        from billing.models import CreditTransaction, MonthlyReplenishment, PaymentEvent
        from billing.services.credits import credits_on_email_verified, credits_on_user_created

        on_user_created(credits_on_user_created)
        on_email_verified(credits_on_email_verified)
        for model in (CreditTransaction, MonthlyReplenishment, PaymentEvent):
            user_data(model, takeover=LEDGER, erasure=LEDGER)

        from billing.services.payments import payments_notify
        from notifications.events import subscribe

        for event in ("payment.plan_paid", "payment.subscription_charged", "payment.failed"):
            subscribe(event, payments_notify)
