"""`grant_credits --email E --credits N --reason R`: add credits, or remove some (not below 0)."""

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.selectors import user_get_by_email
from billing.models import CreditTransaction
from billing.services.credits import MAX_OPERATOR_CREDITS, credits_adjust, credits_grant


class Command(BaseCommand):
    help = "Grant credits to a user (a negative number removes credits, stopping at zero)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--email", required=True)
        parser.add_argument("--credits", type=int, required=True)
        parser.add_argument("--reason", required=True, help="Why: kept on the ledger row.")

    def handle(self, *args: Any, **options: Any) -> None:
        amount: int = options["credits"]
        if amount == 0:
            raise CommandError("--credits must not be 0")
        if abs(amount) > MAX_OPERATOR_CREDITS:
            raise CommandError(
                f"--credits must be between 1 and {MAX_OPERATOR_CREDITS:,} (or -1 and "
                f"-{MAX_OPERATOR_CREDITS:,} to remove credits), not {amount:,}."
            )
        reason = options["reason"].strip()
        if not reason:
            raise CommandError("--reason must say why (it is kept on the ledger row).")
        user = user_get_by_email(email=options["email"])
        if user is None:
            raise CommandError(f"No user with e-mail {options['email']}")
        reference = f"operator: {reason}"[:200]
        entry: CreditTransaction | None = (
            credits_grant(user=user, amount=amount, reference=reference)
            if amount > 0
            else credits_adjust(user=user, delta=amount, reference=reference)
        )
        if entry is None:
            self.stdout.write(f"{user.email} has no credits to remove; nothing changed.")
            return
        self.stdout.write(
            self.style.SUCCESS(
                f"{user.email}: {entry.delta:+d} credits, balance {entry.balance_after}."
            )
        )
