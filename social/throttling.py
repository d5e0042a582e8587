"""The media library's upload rate: MEDIA_UPLOADS_PER_HOUR files added per library (a
workspace's), in the shared rate-limit counters (core.ratelimit), beside the per-address and
per-key limits."""

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from core import ratelimit

UPLOAD_RATE_PERIOD_SECONDS = 3600


class MediaUploadThrottle(BaseThrottle):
    """Counts each file added to the library (a POST: an upload or a registration) against
    its workspace (the view's `workspace_id`: social.api.scoping), after authentication and
    the workspace's permission and before the body is read; reading the library is not
    counted. Past the limit: 429 `rate_limited` with `Retry-After`. When the counter store is
    down the request passes uncounted, as everywhere (core.ratelimit)."""

    def __init__(self) -> None:
        self.window: ratelimit.Window | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method != "POST":
            return True
        self.window = ratelimit.hit(
            f"media:{view.workspace_id}",
            limit=settings.MEDIA_UPLOADS_PER_HOUR,
            period=UPLOAD_RATE_PERIOD_SECONDS,
        )
        return not self.window.exceeded

    def wait(self) -> float | None:
        return float(self.window.reset) if self.window is not None else None


PUBLIC_APPROVAL_REQUESTS_PER_HOUR = 120  # per client address, over every approval link
PUBLIC_APPROVAL_PERIOD_SECONDS = 3600


class PublicApprovalThrottle(BaseThrottle):
    """The public approval links (workspaces.md section 3): PUBLIC_APPROVAL_REQUESTS_PER_HOUR
    requests per client address across all links, reads and decisions alike, so no address
    walks tokens; past it 429 `rate_limited` with `Retry-After`."""

    def __init__(self) -> None:
        self.window: ratelimit.Window | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        self.window = ratelimit.hit(
            f"approval-links:{ratelimit.client_ip(request)}",
            limit=PUBLIC_APPROVAL_REQUESTS_PER_HOUR,
            period=PUBLIC_APPROVAL_PERIOD_SECONDS,
        )
        return not self.window.exceeded

    def wait(self) -> float | None:
        return float(self.window.reset) if self.window is not None else None


PUBLIC_SHARE_REQUESTS_PER_HOUR = 300  # per client address, over every share link
PUBLIC_SHARE_PERIOD_SECONDS = 3600


class PublicShareThrottle(BaseThrottle):
    """The public share links (workspaces.md section 4; docs/workspaces.md, "Sharing and
    reports"): PUBLIC_SHARE_REQUESTS_PER_HOUR requests per client address across all links,
    so no address walks tokens or has reports made without end; a calendar app reads its
    feed about once an hour. Past it 429 `rate_limited` with `Retry-After`."""

    def __init__(self) -> None:
        self.window: ratelimit.Window | None = None

    def allow_request(self, request: Request, view: Any) -> bool:
        self.window = ratelimit.hit(
            f"share-links:{ratelimit.client_ip(request)}",
            limit=PUBLIC_SHARE_REQUESTS_PER_HOUR,
            period=PUBLIC_SHARE_PERIOD_SECONDS,
        )
        return not self.window.exceeded

    def wait(self) -> float | None:
        return float(self.window.reset) if self.window is not None else None
