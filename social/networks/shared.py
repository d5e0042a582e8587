"""The error rows every network shares (social.md section 12): the adapters' own refusals and
what they make of odd answers, then the HTTP statuses any platform may answer; each network's
own rows are in its module. social.outcomes puts them after every network's."""

from social.networks.base import Rule

OURS = "ours"
OUTBOUND = "outbound"


SHARED: tuple[Rule, ...] = (
    # --- The adapters' own refusals and what they make of odd answers (no HTTP status) -------
    Rule(
        OURS,
        "media_invalid",
        "The platform could not process the video (its reason).",
        text="could not process the video",
    ),
    Rule(
        OURS,
        "platform_outage",
        "The platform did not finish processing the video in time.",
        text="did not finish processing the video",
    ),
    Rule(
        OURS,
        "media_invalid",
        "LinkedIn could not process the document (PROCESSING_FAILED, its reason).",
        text="could not process the document",
    ),
    Rule(
        OURS,
        "platform_outage",
        "The platform did not finish processing the document in time.",
        text="did not finish processing the document",
    ),
    Rule(
        OURS,
        "permission_missing",
        "A LinkedIn page's member lost the page's approved ADMINISTRATOR role (health).",
        text="no longer an administrator of the linkedin page",
        problem="not_page_admin",
        remedy="Ask a super admin of the LinkedIn page to restore your administrator role, "
        "then reconnect the page.",
    ),
    Rule(
        OURS,
        "permission_missing",
        "A Telegram bot may no longer post in its chat (health, the pre-flight check).",
        text="no longer allowed to post in the telegram chat",
        problem="telegram_bot_not_admin",
        remedy="Make the bot an administrator of the channel (or a member of the group) "
        "allowed to post again; nothing needs reconnecting.",
    ),
    Rule(
        OURS,
        "auth_expired",
        "Telegram: the stored credential is not a bot token (never sent).",
        text="not a telegram bot token",
    ),
    Rule(
        OURS,
        "internal",
        "Telegram gives a bot no counters (its records are not collected).",
        text="gives a bot no counters",
    ),
    Rule(
        OURS,
        "media_invalid",
        "Instagram could not process the image (ERROR, EXPIRED).",
        text="could not process the image",
    ),
    Rule(
        OURS,
        "platform_outage",
        "The platform is still processing the media (retried).",
        text="still processing",
    ),
    Rule(OURS, "media_invalid", "The media file is too large to publish.", text="too large"),
    Rule(
        OURS,
        "account_limit",
        "The platform's own daily quota of the account is used up (read before the create; "
        "the rest of a thread waits for it).",
        text="daily quota is used up",
    ),
    Rule(
        OURS,
        "media_invalid",
        "The network needs the video's bytes (a hosted video).",
        text="needs the video's bytes",
    ),
    Rule(OURS, "media_invalid", "Instagram needs an image.", text="needs an image"),
    Rule(
        OURS,
        "permission_missing",
        "YouTube: the Google account has no channel (youtubeSignupRequired).",
        text="has no channel",
    ),
    Rule(
        OURS,
        "permission_missing",
        "TikTok: the creator cannot use the privacy level chosen (creator_info), or may not post.",
        text="the creator cannot",
        remedy="Choose a privacy level the TikTok account offers (a private account, or an "
        "unaudited app, offers SELF_ONLY only), then publish again.",
    ),
    Rule(OURS, "permission_missing", "Pinterest: the account has no board.", text="needs a board"),
    Rule(
        OURS,
        "auth_expired",
        "Discord: the webhook is gone (deleted in Discord) or none was created or kept.",
        text="reconnect the channel",
    ),
    Rule(
        OURS,
        "content_rejected",
        "Google Business Profile: the post's state is REJECTED (Google's content policies).",
        text="rejected the post",
    ),
    Rule(
        OURS,
        "auth_expired",
        "Google Business Profile: Google gave no refresh token when connecting (connect again).",
        text="gave no refresh token",
    ),
    Rule(
        OURS,
        "permission_missing",
        "Slack: the channel was archived (health, the pre-flight check).",
        text="slack channel is archived",
        problem="slack_channel_archived",
        remedy="Unarchive the channel in Slack, or reconnect Slack and pick another channel.",
    ),
    Rule(
        OURS,
        "content_rejected",
        "Slack: the message is no longer in the channel (deleted: its counters stop).",
        text="no longer in the slack channel",
    ),
    Rule(
        OURS,
        "content_rejected",
        "Reddit: the subreddit's post requirements refuse the post (flair_required, "
        "flair_invalid, title_length, body_required, body_not_allowed), nothing submitted.",
        text="post requirements refuse the post",
    ),
    Rule(
        OURS,
        "permission_missing",
        "Reddit: the account has no default subreddit (none named either).",
        text="needs a subreddit",
    ),
    Rule(
        OURS,
        "rate_limited",
        "Reddit: the app's window of calls is used up (X-Ratelimit-Remaining 0) until its reset.",
        text="rate limit for this app is used up",
    ),
    Rule(OURS, "content_rejected", "The network has no threads.", text="has no threads"),
    Rule(
        OURS,
        "content_rejected",
        "The network takes no first comment.",
        text="takes no first comment",
    ),
    Rule(OURS, "media_invalid", "The network takes no video.", text="takes no video"),
    Rule(
        OURS,
        "auth_expired",
        "The platform refused to renew the access token (its refresh token is no longer valid).",
        text="refused to renew the access token",
    ),
    Rule(
        OURS,
        "unconfirmed",
        "The platform did not name what it created (maybe published).",
        text="did not name the created",
    ),
    Rule(
        OURS,
        "unconfirmed",
        "A success whose answer could not be read (maybe published).",
        text="answer could not be read",
    ),
    Rule(
        OURS,
        "unconfirmed",
        "The outcome could not be established (the last attempt's, or "
        "a lookup whose pages did not reach back to the attempt).",
        text="outcome could not be established",
    ),
    Rule(
        OURS,
        "internal",
        "The last attempt stopped before its result was recorded, and the "
        "post is not on the platform.",
        text="stopped before its result was recorded",
    ),
    Rule(
        OURS,
        "platform_outage",
        "An answer of a shape the platform's API does not document.",
        text="shape its api does not document",
    ),
    Rule(
        OURS,
        "content_rejected",
        "DEV: the article was deleted there (its counters).",
        text="no longer among",
    ),
    Rule(OURS, "internal", "An unexpected error in our code (logged).", text="unexpected error"),
    Rule(
        OURS,
        "unconfirmed",
        "Nothing was recorded for the attempt (maybe published).",
        text="no result",
    ),
    # --- The outbound layer: timeouts, lost answers, refusals by status -----------------------
    Rule(
        OUTBOUND,
        "platform_outage",
        "Timeout before sending: nothing reached the platform.",
        text="could not be reached in time",
    ),
    Rule(
        OUTBOUND,
        "platform_outage",
        "Timeout after sending: no answer in time (looked up before the next attempt).",
        text="did not answer in time",
    ),
    Rule(
        OUTBOUND,
        "platform_outage",
        "The answer did not finish in time (looked up before the next attempt).",
        text="did not finish answering in time",
    ),
    Rule(
        OUTBOUND,
        "unconfirmed",
        "Lost answer: the connection broke while the platform answered.",
        text="connection broke",
    ),
    Rule(
        OUTBOUND,
        "unconfirmed",
        "Lost answer: the connection dropped after sending.",
        text="could not be reached",
        maybe_delivered=True,
    ),
    Rule(
        OUTBOUND,
        "platform_outage",
        "Connection refused or the name did not resolve.",
        text="could not be reached",
        maybe_delivered=False,
    ),
    Rule(
        OUTBOUND,
        "platform_outage",
        "Too many calls to one server at once (retried).",
        text="too many calls",
    ),
    Rule(
        OUTBOUND,
        "media_invalid",
        "A media URL the guard refused (not https, not public, no such host).",
        text="the url",
    ),
    Rule(
        OUTBOUND,
        "media_invalid",
        "A media URL's server sent the request elsewhere.",
        text="left the checked host",
    ),
    Rule(
        OUTBOUND,
        "internal",
        "The platform's answer was larger than we read.",
        text="answer is larger",
    ),
    Rule(
        OUTBOUND,
        "auth_expired",
        "A credential HTTP cannot carry in a header.",
        text="header cannot carry",
    ),
    Rule(OUTBOUND, "internal", "The request could not be sent.", text="request could not be sent"),
    Rule(OUTBOUND, "auth_expired", "HTTP 401: the credentials were refused.", status=401),
    Rule(
        OUTBOUND, "permission_missing", "HTTP 403: not allowed with these credentials.", status=403
    ),
    Rule(OUTBOUND, "platform_outage", "HTTP 408: the platform timed the request out.", status=408),
    Rule(
        OUTBOUND, "rate_limited", "HTTP 429: too many requests (Retry-After honoured).", status=429
    ),
    Rule(
        OUTBOUND, "platform_outage", "HTTP 5xx: the platform failed or is down.", status=(500, 599)
    ),
    Rule(
        OUTBOUND,
        "content_rejected",
        "Any other HTTP 4xx: the request was refused.",
        status=(400, 499),
    ),
)
