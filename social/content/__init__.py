"""Content: what a user writes, before any schedule: posts and their per-network composition,
the preview, the media library and campaigns. Siblings and the API import from here only."""

from social.content.inputs import (
    PostInput,
    ThreadPart,
    VariantInput,
)
from social.content.services.campaigns import (
    CampaignInput,
    campaign_delete,
    campaign_save,
    workspace_campaign,
)
from social.content.services.comments import (
    COMMENT_MAX,
    comment_add,
    comment_author,
    comment_data,
    comments_of,
)
from social.content.services.composition import (
    Draft,
    Part,
    parts_missing,
    parts_of,
)
from social.content.services.media import (
    DOCUMENT_TYPES,
    IMAGE_TYPES,
    MAX_ALT,
    VIDEO_TYPES,
    media_alt_set,
    media_delete,
    media_erase,
    media_register,
    media_upload,
    type_limit,
)
from social.content.services.post_status import (
    post_scheduled_fresh,
    post_status_refresh,
    posts_live,
    posts_live_of,
    posts_outcome_refresh,
    posts_records,
    record_parts,
)
from social.content.services.posts import (
    account_target,
    draft_of,
    post_apply,
    post_counted,
    post_delete,
    post_new,
    post_save,
    workspace_post,
)
from social.content.services.preview import (
    TargetPreview,
    post_preview,
)

__all__ = [
    "COMMENT_MAX",
    "DOCUMENT_TYPES",
    "IMAGE_TYPES",
    "MAX_ALT",
    "VIDEO_TYPES",
    "CampaignInput",
    "Draft",
    "Part",
    "PostInput",
    "TargetPreview",
    "ThreadPart",
    "VariantInput",
    "account_target",
    "campaign_delete",
    "campaign_save",
    "comment_add",
    "comment_author",
    "comment_data",
    "comments_of",
    "draft_of",
    "media_alt_set",
    "media_delete",
    "media_erase",
    "media_register",
    "media_upload",
    "parts_missing",
    "parts_of",
    "post_apply",
    "post_counted",
    "post_delete",
    "post_new",
    "post_preview",
    "post_save",
    "post_scheduled_fresh",
    "post_status_refresh",
    "posts_live",
    "posts_live_of",
    "posts_outcome_refresh",
    "posts_records",
    "record_parts",
    "type_limit",
    "workspace_campaign",
    "workspace_post",
]
