"""Errors of the social hub, in the one error contract (social.md section 2)."""

from http import HTTPStatus

from core.errors import ApplicationError, ConflictError, NotFoundError


class ProviderAuthFailed(ApplicationError):
    code = "provider_auth_failed"
    message = "The provider refused the code or credentials."


class ProviderUnavailable(ApplicationError):
    status_code = HTTPStatus.BAD_GATEWAY
    code = "provider_unavailable"
    message = "The provider could not be reached. Try again in a moment."


class ProviderNotConfigured(ApplicationError):
    status_code = HTTPStatus.SERVICE_UNAVAILABLE
    code = "provider_not_configured"
    message = "Connecting this provider is not available on this server."


class AccountAlreadyConnected(ConflictError):
    code = "account_already_connected"
    message = "This account is already connected by another user."


class AccountNotFound(NotFoundError):
    message = "Social account not found."


class InvalidState(ApplicationError):
    code = "invalid_state"
    message = "The sign-in with the provider expired or was already used. Start again."


class ConsentDenied(ApplicationError):
    code = "consent_denied"
    message = "The consent was declined at the provider: nothing was connected. Start again."


class AuthorizeFirst(ApplicationError):
    code = "authorize_first"
    message = "Authorize with this Mastodon server first."


class NoFacebookPage(ApplicationError):
    code = "no_facebook_page"
    message = "The Facebook login manages no page this app may publish to."


class NoLinkedInPage(ApplicationError):
    code = "no_linkedin_page"
    message = "The LinkedIn member administers no page this app may publish to."


class NoInstagramAccount(ApplicationError):
    code = "no_instagram_account"
    message = "No Facebook page of this login has an Instagram business account linked."


class NoYoutubeChannel(ApplicationError):
    code = "no_youtube_channel"
    message = "This Google account has no YouTube channel: create one, then connect again."


class NoPinterestBoard(ApplicationError):
    code = "no_pinterest_board"
    message = "This Pinterest account has no board to pin to: create one, then connect again."


class BoardNotFound(ApplicationError):
    code = "board_not_found"
    message = "The board named is not one of this Pinterest account's boards."


class NoGoogleLocation(ApplicationError):
    code = "no_google_location"
    message = "The Google account manages no Business Profile location, or not the one named."


class ScopeMissing(ApplicationError):
    code = "scope_missing"
    message = "The consent did not grant a permission this app needs: connect again and grant it."


class TelegramChatNotFound(ApplicationError):
    code = "telegram_chat_not_found"
    message = "Telegram knows no channel or group by this name or id that the bot is in."


class TelegramBotNotAdmin(ApplicationError):
    code = "telegram_bot_not_admin"
    message = "The bot may not post in this chat: make it an administrator allowed to post."


class SlackChannelNotFound(ApplicationError):
    code = "slack_channel_not_found"
    message = "The channel named is not one of this Slack workspace's public channels."


class RedditSubredditNotFound(ApplicationError):
    code = "reddit_subreddit_not_found"
    message = "Reddit has no subreddit by this name that this account can see."


# A connection the provider accepted but that cannot be made (ConnectionRefused's `code`):
# the error it is answered with.
CONNECT_REFUSALS: dict[str, type[ApplicationError]] = {
    "no_facebook_page": NoFacebookPage,
    "no_instagram_account": NoInstagramAccount,
    "no_linkedin_page": NoLinkedInPage,
    "no_youtube_channel": NoYoutubeChannel,
    "no_pinterest_board": NoPinterestBoard,
    "board_not_found": BoardNotFound,
    "no_google_location": NoGoogleLocation,
    "scope_missing": ScopeMissing,
    "telegram_chat_not_found": TelegramChatNotFound,
    "telegram_bot_not_admin": TelegramBotNotAdmin,
    "slack_channel_not_found": SlackChannelNotFound,
    "reddit_subreddit_not_found": RedditSubredditNotFound,
}


class PostNotFound(NotFoundError):
    message = "Post not found."


class RecordNotFound(NotFoundError):
    message = "Scheduled record not found."


class CampaignNotFound(NotFoundError):
    message = "Campaign not found."


class PostAlreadyPublished(ConflictError):
    code = "post_already_published"
    message = "A published post cannot be edited."


class AlreadyPublished(ConflictError):
    code = "already_published"
    message = "This post was already published to that account."


class RecordNotScheduled(ConflictError):
    code = "not_scheduled"
    message = "Only a scheduled record that is still waiting can be moved or cancelled."


class PlatformNotConnected(ApplicationError):
    code = "platform_not_connected"
    message = "No connected account for that platform."


class PlatformAmbiguous(ApplicationError):
    code = "platform_ambiguous"
    message = "Several connected accounts for that platform: choose them with accountIds."


class NonexistentLocalTime(ApplicationError):
    code = "nonexistent_local_time"
    message = "That local time does not exist in the time zone (the clocks skip it)."


class AccountExpiresBefore(ApplicationError):
    code = "account_expires_before"
    message = "An account's connection expires before the scheduled time: reconnect it first."


class MediaNotFound(NotFoundError):
    message = "Media item not found."


class MediaQuotaExceeded(ApplicationError):
    status_code = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    code = "media_quota_exceeded"
    message = "The media library is full: delete files you no longer need first."


class ImageTooLarge(ApplicationError):
    status_code = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
    code = "image_too_large"
    message = "The image has more pixels or frames than the server re-encodes: resize it first."


class QueueEmpty(ApplicationError):
    code = "queue_empty"
    message = "The account's queue has no slots: set its weekly slots first."


class QueueFull(ApplicationError):
    code = "queue_full"
    message = "The account's queue has no free slot within 365 days: add slots or free some."


class QueueNotEmpty(ConflictError):
    code = "queue_not_empty"
    message = "The queue already has slots: only an empty queue is filled with suggestions."


class InvalidCronSecret(ApplicationError):
    status_code = HTTPStatus.UNAUTHORIZED
    code = "invalid_cron_secret"
    message = "Unauthorized: missing or invalid X-Cron-Secret"


class ThreadNotSupported(ApplicationError):
    code = "thread_not_supported"
    message = "This network has no threads: send the thread as a variant for Bluesky or Mastodon."


class FirstCommentNotSupported(ApplicationError):
    code = "first_comment_not_supported"
    message = "This network takes no first comment."


class AltTextRequired(ApplicationError):
    code = "alt_text_required"
    message = "Every image needs alt text (your settings require it)."


class VideoNotSupported(ApplicationError):
    code = "video_not_supported"
    message = "This network takes no video through its API."


class DocumentNotSupported(ApplicationError):
    code = "document_not_supported"
    message = "This network takes no documents: only LinkedIn publishes a PDF as a post."


class RecordNotFailed(ConflictError):
    code = "not_failed"
    message = "Only a failed record can be retried."


class RecordNotUnconfirmed(ConflictError):
    code = "not_unconfirmed"
    message = "Only an unconfirmed record can be resolved."


class AccountNotConnected(ConflictError):
    code = "account_not_connected"
    message = "The record's account is not connected: reconnect it first."


class TargetTaken(ConflictError):
    code = "already_scheduled"
    message = "This post is already scheduled or published to this account by another record."


# --- Approvals (workspaces.md section 3) -----------------------------------------------------


class ApprovalRequired(ConflictError):
    code = "approval_required"
    message = "This post needs an approval of its current version before it can be published."


class ApprovalStale(ConflictError):
    code = "approval_stale"
    message = "The post changed since this approval was asked for: ask again."


class ApprovalClosed(ApplicationError):
    status_code = HTTPStatus.GONE
    code = "approval_closed"
    message = "This approval request was already decided, or it expired."


class ApprovalNotFound(NotFoundError):
    code = "not_found"
    message = "No such approval request."


class NothingToApprove(ConflictError):
    code = "nothing_to_approve"
    message = "This post needs no approval, or its current version is already approved."


class ShareLinkNotFound(NotFoundError):
    code = "not_found"
    message = "No such share link."


class ShareLinkLimit(ConflictError):
    limit = 50
    code = "share_link_limit"
    message = f"This workspace has {limit} open share links: revoke one first."


class ShareLinkClosed(ApplicationError):
    status_code = HTTPStatus.GONE
    code = "share_link_closed"
    message = "This share link was revoked, or it expired."
