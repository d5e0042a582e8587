"""The per-key rate limit: API_KEY_RATE_LIMIT_PER_MINUTE requests per key, beside the
per-address limit of the edge (core.api.middleware), in the same shared counters."""

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from accounts.models import ApiKey
from core import ratelimit

KEY_RATE_PERIOD_SECONDS = 60


class ApiKeyRateThrottle(BaseThrottle):
    """Counts the requests a key makes once it is authenticated and allowed here (after
    authentication and permissions, where DRF checks throttles); a session's requests are not
    counted here. Past the limit: 429 `rate_limited` with `Retry-After`. When the counter
    store is down the request passes uncounted, as at the edge (core.ratelimit)."""

    def __init__(self) -> None:
        self.window: ratelimit.Window | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        key = request.auth
        if not isinstance(key, ApiKey):
            return True
        self.window = ratelimit.hit(
            f"key:{key.pk}",
            limit=settings.API_KEY_RATE_LIMIT_PER_MINUTE,
            period=KEY_RATE_PERIOD_SECONDS,
        )
        return not self.window.exceeded

    def wait(self) -> float | None:
        return float(self.window.reset) if self.window is not None else None
