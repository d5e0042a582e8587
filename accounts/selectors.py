"""Reads on users."""

from django.db.models.functions import Lower

from accounts.models import User, email_key


def user_get_by_email(*, email: str) -> User | None:
    """Case-insensitive, through Lower() so the unique functional index serves it."""
    return (
        User.objects.alias(email_lower=Lower("email")).filter(email_lower=email_key(email)).first()
    )
