"""Session token housekeeping."""

from django.utils import timezone
from rest_framework_simplejwt.token_blacklist.models import OutstandingToken


def tokens_flush_expired() -> int:
    """Delete refresh tokens past their expiry (their blacklist rows go with them)."""
    deleted, _ = OutstandingToken.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted
