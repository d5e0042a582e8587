"""`createsuperuser`, with the password validators also when it runs without a terminal.

Django's command validates a password typed at its prompt, but takes
DJANGO_SUPERUSER_PASSWORD as it is with `--noinput` (how `make superuser` and deploy scripts
run it): `123` made a working admin. The most privileged login gets the same rules as every
other password (accounts.services.users.password_check).
"""

import os
from typing import Any

from django.contrib.auth.management.commands import createsuperuser
from django.core.management import CommandError

from accounts.models import User
from accounts.services.users import password_check
from core.errors import ValidationFailed


class Command(createsuperuser.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        password = os.environ.get("DJANGO_SUPERUSER_PASSWORD")
        if not options.get("interactive") and password:
            email = options.get("email") or os.environ.get("DJANGO_SUPERUSER_EMAIL", "")
            try:
                password_check(password=password, user=User(email=email))
            except ValidationFailed as error:
                messages = error.details.get("password", []) if error.details else []
                raise CommandError(
                    "The password was refused: " + " ".join(str(m) for m in messages)
                ) from None
        super().handle(*args, **options)
