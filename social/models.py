"""Social accounts a user connects (their credentials encrypted at rest), the OAuth consent in
flight, the apps registered on Mastodon instances, and each user's social hub settings."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.crypto import EncryptedTextField
from core.leases import Leased

# A network's identifier (`provider`, `platform`): one of social.networks' registry. The
# columns hold it without `choices`: the registry, not a list here, says which identifiers
# exist (the API checks them against it, the admin names them from it), so adding a network
# writes no migration. The registry's completeness test keeps every identifier this short.
PROVIDER_LENGTH = 16


class AccountStatus(models.TextChoices):
    CONNECTED = "connected", "Connected"
    EXPIRED = "expired", "Expired: reconnect needed"
    DISCONNECTED = "disconnected", "Disconnected"


class SocialAccount(models.Model):
    """One provider account of one user. Disconnected accounts keep their row (posts and
    analytics refer to it) with their credentials deleted."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="social_accounts",
        db_index=False,  # the (user, status) index leads with user
    )
    provider = models.CharField(max_length=PROVIDER_LENGTH)
    provider_user_id = models.CharField(max_length=255)
    instance = models.CharField(max_length=255, blank=True, default="")  # Mastodon's server
    username = models.CharField(max_length=255, blank=True, default="")
    display_name = models.CharField(max_length=255, blank=True, default="")
    email = models.CharField(max_length=254, blank=True, default="")
    avatar = models.URLField(max_length=1000, blank=True, default="")
    status = models.CharField(
        max_length=16, choices=AccountStatus.choices, default=AccountStatus.CONNECTED
    )
    # Secrets: access and refresh tokens, app passwords, API keys (never returned or logged).
    access_token = EncryptedTextField(blank=True, default="")
    refresh_token = EncryptedTextField(blank=True, default="")
    # When the connection ends without the user (social.md section 2): null for one that
    # renews itself (a Bluesky session), the refresh token's end for a token that has one,
    # else the token's own end. Only this blocks scheduling and is warned about.
    expires_at = models.DateTimeField(null=True, blank=True)
    # When the stored credentials stop working unless renewed (internal: the daily upkeep
    # renews them a week ahead).
    credentials_expire_at = models.DateTimeField(null=True, blank=True)
    # The last expiry warning sent (7 or 1 days before), so the daily task warns once each.
    expiry_warned_days = models.PositiveSmallIntegerField(null=True, blank=True)
    # The account's own API server, where it has one (a Bluesky PDS); '' for the platform's.
    endpoint = models.CharField(max_length=255, blank=True, default="")
    # Mastodon: the app registered on the instance (its secret revokes the token).
    app = models.ForeignKey(
        "social.MastodonApp", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    limits = models.JSONField(default=dict, blank=True)  # the account's live limits
    last_sync = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=["user", "status"], name="social_account_user_idx")]
        constraints = [
            # One live connection per provider account, whoever holds it.
            models.UniqueConstraint(
                fields=["provider", "instance", "provider_user_id"],
                condition=~Q(status="disconnected"),
                name="social_account_connected_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.provider}: {self.username or self.provider_user_id} ({self.status})"


class MastodonApp(models.Model):
    """Our app as registered on one Mastodon instance for one redirect URI, reused by every
    user of that instance."""

    instance = models.CharField(max_length=255)
    redirect_uri = models.CharField(max_length=2000)
    client_id = models.CharField(max_length=255)
    client_secret = EncryptedTextField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "redirect_uri"], name="social_mastodon_app_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.instance} ({self.redirect_uri})"


class ConnectState(models.Model):
    """An OAuth consent in flight: the `state` a user received (stored as its SHA-256), bound
    to the provider, redirect URI and instance, good once for SOCIAL_CONNECT_STATE_SECONDS."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=PROVIDER_LENGTH)
    state_hash = models.CharField(max_length=64, unique=True)
    redirect_uri = models.CharField(max_length=2000)
    instance = models.CharField(max_length=255, blank=True, default="")
    app = models.ForeignKey(MastodonApp, null=True, blank=True, on_delete=models.CASCADE)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["expires_at"], name="social_state_expiry_idx")]

    def __str__(self) -> str:
        return f"{self.provider} consent of {self.user_id}"


NOTIFICATION_PREFERENCES = (
    "oauthSuccess",
    "oauthFailure",
    "tokenExpiry",
    "postPublished",
    "postFailed",
)


class SocialSettings(models.Model):
    """A user's social hub defaults; a user without a row has the defaults."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="social_settings",
    )
    default_platform = models.CharField(  # noqa: DJ001 (null is the API's "no default")
        max_length=PROVIDER_LENGTH, null=True, blank=True
    )
    default_timezone = models.CharField(max_length=64, default="UTC")
    auto_retry = models.BooleanField(default=True)
    # Publishing or scheduling an image without alt text is refused (social.md section 9).
    require_alt_text = models.BooleanField(default=False)
    # Only the keys the user changed; missing keys are on.
    notification_preferences = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "social settings"

    def __str__(self) -> str:
        return f"Social settings of {self.user_id}"

    def wants(self, preference: str) -> bool:
        return bool(self.notification_preferences.get(preference, True))


class CampaignStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ACTIVE = "active", "Active"
    PAUSED = "paused", "Paused"
    COMPLETED = "completed", "Completed"


class Campaign(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="campaigns"
    )
    name = models.CharField(max_length=120)
    description = models.TextField(max_length=2000, blank=True, default="")
    color = models.CharField(max_length=7, blank=True, default="")
    start_date = models.DateField(null=True, blank=True)
    end_date = models.DateField(null=True, blank=True)
    budget = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    goal = models.CharField(max_length=500, blank=True, default="")
    status = models.CharField(
        max_length=16, choices=CampaignStatus.choices, default=CampaignStatus.DRAFT
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return self.name


class PostStatus(models.TextChoices):
    DRAFT = "Draft", "Draft"
    SCHEDULED = "Scheduled", "Scheduled"
    PUBLISHED = "Published", "Published"
    PARTIALLY_PUBLISHED = "PartiallyPublished", "Partially published"
    FAILED = "Failed", "Failed"


class Post(models.Model):
    """What the user wrote. `status` is derived from the post's scheduled records (stored, so
    lists filter on it), `Draft` while it has none that count."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="posts", db_index=False
    )
    title = models.CharField(max_length=300, blank=True, default="")
    content = models.TextField(max_length=100_000)
    hashtags = models.CharField(max_length=1000, blank=True, default="")
    mentions = models.CharField(max_length=1000, blank=True, default="")
    link = models.CharField(max_length=2000, blank=True, default="")
    media_urls = models.JSONField(default=list, blank=True)
    media_ids = models.JSONField(default=list, blank=True)
    platforms = models.JSONField(default=list, blank=True)  # a draft's intended targets
    # Per network (social.md section 9): {provider: {content?, title?, hashtags?, link?,
    # mediaIds?, mediaUrls?, firstComment?, thread?}}, merged over the post's own fields.
    variants = models.JSONField(default=dict, blank=True)
    thread = models.JSONField(default=list, blank=True)  # follow-up parts [{content, mediaIds?}]
    first_comment = models.TextField(max_length=10_000, blank=True, default="")
    # "|linkedin|bluesky|": the providers in `platforms` or in a record, for the list filter.
    provider_set = models.CharField(max_length=120, blank=True, default="")
    campaign = models.ForeignKey(
        Campaign, null=True, blank=True, on_delete=models.SET_NULL, related_name="posts"
    )
    status = models.CharField(max_length=20, choices=PostStatus.choices, default=PostStatus.DRAFT)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(fields=["user", "-created_at", "-id"], name="social_post_user_idx"),
            models.Index(fields=["campaign"], name="social_post_campaign_idx"),
        ]

    def __str__(self) -> str:
        return self.title or self.content[:60]


class RecordStatus(models.TextChoices):
    SCHEDULED = "Scheduled", "Scheduled"  # waiting for its time, or for its next attempt
    PUBLISHING = "Publishing", "Publishing"  # claimed by a worker under a lease
    PUBLISHED = "Published", "Published"
    FAILED = "Failed", "Failed"
    CANCELLED = "Cancelled", "Cancelled"
    UNCONFIRMED = "Unconfirmed", "Unconfirmed"  # the outcome could not be established


# A record in one of these holds its (post, account) target: no second one may be created.
HOLDING_STATUSES = (
    RecordStatus.SCHEDULED,
    RecordStatus.PUBLISHING,
    RecordStatus.PUBLISHED,
    RecordStatus.UNCONFIRMED,
)
OPEN_STATUSES = (RecordStatus.SCHEDULED, RecordStatus.PUBLISHING)


class ScheduledRecord(Leased):
    """One (post, account) target and its publication: when, how many attempts, the outcome.

    `due_at` is when the scheduler should next look at it: the scheduled time before the first
    attempt, then the next attempt's time. `outcome_unknown` says an attempt may have reached
    the platform without an answer: the next attempt looks the post up before creating it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="records")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    account = models.ForeignKey(SocialAccount, on_delete=models.CASCADE, related_name="records")
    provider = models.CharField(max_length=PROVIDER_LENGTH)
    scheduled_time = models.DateTimeField()
    due_at = models.DateTimeField()
    status = models.CharField(
        max_length=16, choices=RecordStatus.choices, default=RecordStatus.SCHEDULED
    )
    outcome_unknown = models.BooleanField(default=False)
    published_at = models.DateTimeField(null=True, blank=True)
    url = models.CharField(max_length=2000, blank=True, default="")
    provider_post_id = models.CharField(max_length=500, blank=True, default="")
    error = models.TextField(max_length=2000, blank=True, default="")
    error_code = models.CharField(max_length=40, blank=True, default="")
    history = models.JSONField(default=list, blank=True)  # one entry per attempt
    # Each part published so far, exactly once: [{index, kind, providerPostId, url, ...}].
    parts = models.JSONField(default=list, blank=True)
    # Published, but not all of it: [{code, message, index}] (a thread cut short, say).
    warnings = models.JSONField(default=list, blank=True)
    # A video the platform is processing (social.md section 10): what its upload left there
    # (the platform's ids, when it began), kept across attempts: never uploaded twice.
    processing = models.JSONField(default=dict, blank=True)
    # Placed by the account's posting queue (social.md section 11): it holds one of the queue's
    # slots while it waits. A record moved to a time of its own leaves the queue.
    queued = models.BooleanField(default=False)
    # An occurrence of a recurring post: when it ends, the series creates the next.
    series = models.ForeignKey(
        "social.Series",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="records",
        db_index=False,  # the constraints' indexes lead with it
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("scheduled_time", "id")
        indexes = [
            # The scheduler's due set: waiting records by due time.
            models.Index(
                fields=["due_at"],
                condition=Q(status="Scheduled"),
                name="social_record_due_idx",
            ),
            # Published records whose later parts wait for their retry (a thread's replies, a
            # first comment: social.md section 9), by due time: the scheduler's other due set.
            models.Index(
                fields=["due_at"],
                condition=Q(status="Published", next_attempt_at__isnull=False),
                name="social_record_parts_due_idx",
            ),
            # Leases to reap.
            models.Index(
                fields=["lease_expires_at"],
                condition=Q(status="Publishing"),
                name="social_record_lease_idx",
            ),
            models.Index(fields=["user", "scheduled_time"], name="social_record_user_idx"),
            models.Index(fields=["account", "status"], name="social_record_account_idx"),
        ]
        constraints = [
            # A recurring post's occurrences share their target: one at a time (below).
            models.UniqueConstraint(
                fields=["post", "account"],
                condition=Q(status__in=["Scheduled", "Publishing", "Published", "Unconfirmed"])
                & Q(series__isnull=True),
                name="social_record_one_per_target",
            ),
            models.UniqueConstraint(
                fields=["series", "account"],
                condition=Q(status__in=["Scheduled", "Publishing"]),
                name="social_record_series_one_pending",
            ),
            # Two waiting queued records of one account never hold the same slot.
            models.UniqueConstraint(
                fields=["account", "scheduled_time"],
                condition=Q(queued=True, status="Scheduled"),
                name="social_record_queue_slot_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.status} at {self.scheduled_time:%Y-%m-%d %H:%M}"


class MediaItem(models.Model):
    """A file in the user's media library: hosted elsewhere (`url` only) or uploaded here
    (`file`, stored through Django's storage API; `url` is its absolute public address)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="media", db_index=False
    )
    type = models.CharField(max_length=64)  # MIME type
    url = models.CharField(max_length=2000)
    filename = models.CharField(max_length=255, blank=True, default="")
    size = models.PositiveBigIntegerField()
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    file = models.FileField(upload_to="social/", blank=True, max_length=300)
    alt = models.TextField(max_length=1500, blank=True, default="")  # sent to each network
    duration = models.FloatField(null=True, blank=True)  # a video's, in seconds, from its header
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=["user", "-created_at"], name="social_media_user_idx")]

    def __str__(self) -> str:
        return self.filename or self.url


class AnalyticsRecord(models.Model):
    """A published record's cumulative counters on one day (one row per record and date)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    record = models.ForeignKey(ScheduledRecord, on_delete=models.CASCADE, related_name="metrics")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="+")
    account = models.ForeignKey(SocialAccount, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=PROVIDER_LENGTH)
    date = models.DateField()
    impressions = models.PositiveBigIntegerField(default=0)
    engagement = models.PositiveBigIntegerField(default=0)
    clicks = models.PositiveBigIntegerField(default=0)
    collected_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-date", "provider", "id")
        indexes = [models.Index(fields=["user", "-date"], name="social_metrics_user_idx")]
        constraints = [
            models.UniqueConstraint(fields=["record", "date"], name="social_metrics_once_a_day")
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.date}: {self.impressions}/{self.engagement}/{self.clicks}"


class PostCounter(models.Model):
    """How many posts a user has, kept by the services in the transaction of each create and
    delete: the posts list's `meta.total` is one primary-key read instead of a COUNT. A user
    without a row is counted once, when the total is first read."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="post_counter",
    )
    total = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.total} posts"


WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # a slot's `day`, as date.weekday()


class AccountQueue(models.Model):
    """An account's posting queue (social.md section 11): weekly slots, wall-clock times in
    `time_zone`, which queued posts take in turn; `paused` holds its queued records back. An
    account without a row has no slots."""

    account = models.OneToOneField(
        SocialAccount, primary_key=True, on_delete=models.CASCADE, related_name="queue"
    )
    time_zone = models.CharField(max_length=64, default="UTC")
    slots = models.JSONField(default=list, blank=True)  # [{"day": "mon", "time": "09:00"}], sorted
    paused = models.BooleanField(default=False)
    paused_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            # The scheduler skips the queued records of the (few) paused queues.
            models.Index(
                fields=["account"], condition=Q(paused=True), name="social_queue_paused_idx"
            )
        ]

    def __str__(self) -> str:
        return f"Queue of {self.account}"


class Series(models.Model):
    """A recurring post: an RFC 5545 RRULE read in `time_zone` from `starts_at` (its DTSTART, the
    first occurrence). Each account of the post has one waiting occurrence at a time; when it
    ends, the next is created, until `until`, `count` occurrences, or the series is ended."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    post = models.OneToOneField(Post, on_delete=models.CASCADE, related_name="series")
    rule = models.CharField(max_length=500)
    time_zone = models.CharField(max_length=64, default="UTC")
    starts_at = models.DateTimeField()
    until = models.DateTimeField(null=True, blank=True)
    count = models.PositiveIntegerField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "series"

    def __str__(self) -> str:
        return f"{self.rule} from {self.starts_at:%Y-%m-%d %H:%M}"


class AccountHealth(models.Model):
    """An account's last health check (social.md section 12: one cheap identity call, kept 5
    minutes) and what the pre-flight announced about it (`post.at_risk` once per problem). A
    reconnect deletes it: the account is checked afresh."""

    account = models.OneToOneField(
        SocialAccount, primary_key=True, on_delete=models.CASCADE, related_name="health"
    )
    checked_at = models.DateTimeField(null=True, blank=True)
    report = models.JSONField(default=dict, blank=True)  # GET .../health as last answered
    # The pre-flight's last look at the account (it looks once per PREFLIGHT_EVERY).
    preflight_at = models.DateTimeField(null=True, blank=True)
    # Problem code -> when `post.at_risk` named it; a problem gone is forgotten.
    announced = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name_plural = "account health"

    def __str__(self) -> str:
        return f"Health of {self.account_id}"
