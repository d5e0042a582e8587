"""send_system_alert: a system_alert notification to every active user or to chosen ones."""

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db.models.functions import Lower

from accounts.models import User
from notifications.services.center import BATCH_SIZE, system_alert_send


class Command(BaseCommand):
    help = (
        "Send a system_alert notification (category System) to every active user (--all) or "
        "to the users with the given e-mail addresses (--email, repeatable). One INSERT per "
        "batch of users, never one per user."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--title", required=True, help="Up to 200 characters.")
        parser.add_argument("--message", required=True, help="Up to 2000 characters.")
        audience = parser.add_mutually_exclusive_group(required=True)
        audience.add_argument("--all", action="store_true", help="Every active user.")
        audience.add_argument(
            "--email",
            action="append",
            metavar="EMAIL",
            help="A recipient's e-mail (case-insensitive); repeat for more.",
        )
        parser.add_argument(
            "--batch-size",
            type=int,
            default=BATCH_SIZE,
            help=f"Users per INSERT (default {BATCH_SIZE}).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        title, message = options["title"].strip(), options["message"].strip()
        if not title or not message:
            raise CommandError("--title and --message must not be empty.")
        if len(title) > 200 or len(message) > 2000:
            raise CommandError("--title is limited to 200 characters, --message to 2000.")
        if options["batch_size"] < 1:
            raise CommandError("--batch-size must be at least 1.")

        user_ids = None if options["all"] else self._user_ids(options["email"])
        sent = system_alert_send(
            user_ids=user_ids, title=title, message=message, batch_size=options["batch_size"]
        )
        self.stdout.write(self.style.SUCCESS(f"Sent {sent} system alert(s)."))

    @staticmethod
    def _user_ids(emails: list[str]) -> list[Any]:
        wanted = {email.strip().lower() for email in emails}
        found = dict(
            User.objects.alias(email_lower=Lower("email"))
            .filter(email_lower__in=wanted)
            .values_list(Lower("email"), "id")
        )
        if missing := sorted(wanted - found.keys()):
            # Nothing is sent when an address is wrong: a typo must not halve the audience.
            raise CommandError(f"No user with e-mail: {', '.join(missing)}")
        return list(found.values())
