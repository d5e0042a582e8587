"""The social hub's tables, a module per sub-domain (`connections`, `content`, `planning`,
`analytics`); `from social.models import X` names any of them."""

from social.models.analytics import AnalyticsRecord
from social.models.approvals import (
    ApprovalClient,
    ApprovalRequest,
    ApprovalStatus,
    CommentAuthor,
    PostComment,
)
from social.models.connections import (
    NOTIFICATION_PREFERENCES,
    PROVIDER_LENGTH,
    AccountHealth,
    AccountStatus,
    ConnectState,
    MastodonApp,
    SocialAccount,
    SocialSettings,
)
from social.models.content import Campaign, CampaignStatus, MediaItem, Post, PostCounter, PostStatus
from social.models.planning import (
    HOLDING_STATUSES,
    OPEN_STATUSES,
    WAITING_STATUSES,
    WEEKDAYS,
    AccountQueue,
    RecordStatus,
    ScheduledRecord,
    Series,
)
from social.models.sharing import ShareKind, ShareLink

__all__ = [
    "HOLDING_STATUSES",
    "NOTIFICATION_PREFERENCES",
    "OPEN_STATUSES",
    "PROVIDER_LENGTH",
    "WAITING_STATUSES",
    "WEEKDAYS",
    "AccountHealth",
    "AccountQueue",
    "AccountStatus",
    "AnalyticsRecord",
    "ApprovalClient",
    "ApprovalRequest",
    "ApprovalStatus",
    "Campaign",
    "CampaignStatus",
    "CommentAuthor",
    "ConnectState",
    "MastodonApp",
    "MediaItem",
    "Post",
    "PostComment",
    "PostCounter",
    "PostStatus",
    "RecordStatus",
    "ScheduledRecord",
    "Series",
    "ShareKind",
    "ShareLink",
    "SocialAccount",
    "SocialSettings",
]
