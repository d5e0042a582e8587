"""The user: a UUID, an e-mail as the login, a role, a plan and a credit balance; magic-link
tokens and API keys; workspaces, their members and invitations."""

import contextlib
import hashlib
import re
import uuid
from datetime import datetime
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class Role(models.TextChoices):
    USER = "user", "User"
    ADMIN = "admin", "Admin"


def email_normalize(email: str) -> str:
    """The one spelling of an address: the domain lower-cased and in its ASCII (IDNA) form, so
    `ana@bücher.de` and `ana@xn--bcher-kva.de` are one account. The local part keeps its case
    (lookups compare through Lower())."""
    local, at, domain = (email or "").strip().rpartition("@")
    if not at:
        return (email or "").strip()
    with contextlib.suppress(UnicodeError):  # not a valid IDN: the e-mail validator decides
        domain = domain.encode("idna").decode("ascii")
    return f"{local}@{domain.lower()}"


def email_key(email: str) -> str:
    """How addresses are matched: normalized, then case-blind."""
    return email_normalize(email).lower()


# Providers that deliver every spelling of a local part, whatever its dots, to one mailbox.
_DOTLESS_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}


def email_mailbox(email: str) -> str:
    """The mailbox an address delivers to, for what is given once per person (the starting
    credits): case-blind, without a `+tag` (sub-addressing, which most providers deliver to
    the untagged mailbox) and, for Gmail, without dots, googlemail.com being gmail.com. It
    never names an account: the user's e-mail stays as typed."""
    address = email_key(email)
    local, at, domain = address.rpartition("@")
    if not at:
        return address
    local = local.split("+", 1)[0] or local
    if domain in _DOTLESS_DOMAINS:
        local, domain = local.replace(".", ""), _DOTLESS_DOMAINS[domain]
    return f"{local}@{domain}"


# No angle brackets and no control characters (Unicode's Cc: U+0000-001F, U+007F-009F).
PLAIN_NAME_CHARACTERS = r"[^<>\x00-\x1f\x7f-\x9f]*"
PLAIN_NAME_MESSAGE = "Use plain text: no < or > and no control characters."
# The API's form of the rule, which its schema carries as a pattern. Python's `$` also matches
# before a final newline: exact for the API's fields, which trim white space first.
plain_name_pattern = RegexValidator(f"^{PLAIN_NAME_CHARACTERS}$", PLAIN_NAME_MESSAGE)


def validate_plain_name(value: str) -> None:
    """Names are shown in e-mails, the admin and other users' screens: plain text only. Angle
    brackets (markup) and control characters are refused rather than silently stripped."""
    if not re.fullmatch(PLAIN_NAME_CHARACTERS, value):
        raise ValidationError(PLAIN_NAME_MESSAGE)


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    @classmethod
    def normalize_email(cls, email: str | None) -> str:
        return email_normalize(email or "")

    def get_by_natural_key(self, username: str | None) -> "User":
        # E-mails are unique case-insensitively, so the login matches them that way too
        # (through Lower(), which the unique index covers; iexact would not use it).
        return self.alias(email_lower=Lower("email")).get(email_lower=email_key(username or ""))

    def create_user(self, email: str, password: str | None = None, **fields: Any) -> "User":
        if not email:
            raise ValueError("An e-mail address is required.")
        # The balance starts at 0: credits arrive only through the billing ledger
        # (accounts.services.users.user_create grants the free plan's).
        fields.setdefault("monthly_quota", settings.PLANS["free"]["monthly_quota"])
        user = self.model(email=self.normalize_email(email), **fields)
        if password:
            user.set_password(password)
        else:
            user.set_unusable_password()
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **fields: Any) -> "User":
        """What `createsuperuser` calls: an operator is made by the services like every user
        (accounts.services.users.superuser_create), with their personal workspace."""
        from accounts.services.users import superuser_create

        return superuser_create(email=email, password=password, **fields)


class User(AbstractBaseUser, PermissionsMixin):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # unique=True is what Django auth requires; the Lower() constraint makes it case-blind.
    email = models.EmailField(max_length=254, unique=True)
    full_name = models.CharField(
        max_length=200, blank=True, default="", validators=[validate_plain_name]
    )
    avatar_url = models.URLField(max_length=1000, blank=True, default="")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.USER)
    plan = models.CharField(max_length=32, default="free")
    credits_remaining = models.IntegerField(default=0)
    monthly_quota = models.IntegerField(default=0)
    email_verified = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)
    # Every session token carries the version it was issued under; bumping it revokes them all.
    token_version = models.PositiveIntegerField(default=0)
    # Session families revoked by a refresh-token replay: {sid: revoked at (Unix seconds)},
    # pruned past the longest session's lifetime. Read with the user, so checking costs nothing.
    revoked_sessions = models.JSONField(default=dict, blank=True)
    # Set when the account was erased: the row stays (anonymised) so the ledger and payment
    # records keep a valid reference; nothing personal is left on it.
    erased_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    objects: ClassVar[UserManager] = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("email"), name="accounts_user_email_ci_unique"),
            models.CheckConstraint(
                condition=models.Q(credits_remaining__gte=0),
                name="accounts_user_credits_non_negative",
            ),
            models.CheckConstraint(
                condition=models.Q(monthly_quota__gte=0),
                name="accounts_user_quota_non_negative",
            ),
        ]

    def __str__(self) -> str:
        return self.email

    @property
    def is_staff(self) -> bool:
        """Admins are staff: the role is the one source of truth for admin access."""
        return self.role == Role.ADMIN


class MagicLinkToken(models.Model):
    """A single-use sign-in link. Only the SHA-256 of the token is stored."""

    id = models.BigAutoField(primary_key=True)
    email = models.EmailField(max_length=254, db_index=True)  # lower-cased
    token_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"Magic link for {self.email} ({'used' if self.used_at else 'unused'})"


API_KEY_PREFIX = "fgp_"  # every key starts so; scanners and humans recognise it
API_KEY_SHOWN_PREFIX = 12  # characters of the key kept in clear, to recognise it in a list


def api_key_hash(key: str) -> str:
    """How a key is stored and found: its SHA-256, hex. The key itself is never stored."""
    return hashlib.sha256(key.encode()).hexdigest()


class ApiKey(models.Model):
    """A personal API key with scopes, bound to one workspace (docs/api-keys.md): only its
    hash and its first characters are kept. Revoked keys stay, marked, for the admin's audit
    trail."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_keys")
    # The workspace the key was made in: it acts there alone (docs/workspaces.md); the key goes
    # with the workspace.
    workspace = models.ForeignKey("Workspace", on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=80, validators=[validate_plain_name])
    prefix = models.CharField(max_length=API_KEY_SHOWN_PREFIX)
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)  # accounts.scopes.Scope values
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)
    # Written at most once a minute (accounts.services.api_keys.api_key_touch).
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        verbose_name = "API key"
        indexes = [
            # A user's keys that are not revoked: the list, and the count of live keys.
            models.Index(
                fields=["user", "created_at"],
                condition=models.Q(revoked_at__isnull=True),
                name="accounts_apikey_user_unrevoked",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(expires_at__isnull=True)
                | models.Q(expires_at__gt=models.F("created_at")),
                name="accounts_apikey_expires_after_creation",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def is_live(self, *, at: datetime | None = None) -> bool:
        """Not revoked and not expired (at `at`, default now)."""
        now = at or timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)


class WorkspaceRole(models.TextChoices):
    """A member's role in a workspace (what each may do: accounts.roles)."""

    OWNER = "owner", "Owner"
    ADMIN = "admin", "Admin"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"
    CLIENT = "client", "Client"


WORKSPACE_NAME_MAX = 80
PERSONAL_WORKSPACE_NAME = "Personal"


class Workspace(models.Model):
    """Who may act on the social hub: a user's personal workspace (one each, made at sign-up,
    never shared) or a shared one, a client's, with members (docs/workspaces.md)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=WORKSPACE_NAME_MAX, validators=[validate_plain_name])
    personal = models.BooleanField(default=False)
    # The user whose personal workspace this is (none for a shared one): one each, by the
    # database's unique index.
    personal_user = models.OneToOneField(
        User,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="personal_workspace",
    )
    approval_required = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at",)
        constraints = [
            models.CheckConstraint(
                condition=models.Q(personal=True, personal_user__isnull=False)
                | models.Q(personal=False, personal_user__isnull=True),
                name="accounts_workspace_personal_has_its_user",
            ),
            models.CheckConstraint(
                condition=~models.Q(name=""), name="accounts_workspace_name_not_empty"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (personal)" if self.personal else self.name


class Membership(models.Model):
    """A user's place in a workspace, with one role."""

    id = models.BigAutoField(primary_key=True)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=WorkspaceRole.choices)
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("joined_at", "id")
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "user"], name="accounts_membership_one_per_user"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.workspace_id} ({self.role})"


class Invitation(models.Model):
    """An invitation by e-mail to join a workspace with a role: a single-use token, of which
    only the SHA-256 is kept, that only the invited address can accept."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField(max_length=254, db_index=True)  # email_key(): as matched
    role = models.CharField(max_length=16, choices=WorkspaceRole.choices)
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, blank=True, related_name="invitations_sent"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at",)
        constraints = [
            # One open invitation per address and workspace: inviting again replaces it.
            models.UniqueConstraint(
                fields=["workspace", "email"],
                condition=models.Q(accepted_at__isnull=True, revoked_at__isnull=True),
                name="accounts_invitation_one_open_per_email",
            ),
            models.CheckConstraint(
                condition=models.Q(expires_at__gt=models.F("created_at")),
                name="accounts_invitation_expires_after_creation",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.email} to {self.workspace_id} as {self.role}"

    def is_pending(self, *, at: datetime | None = None) -> bool:
        """Neither accepted nor revoked, and not expired (at `at`, default now)."""
        now = at or timezone.now()
        return self.accepted_at is None and self.revoked_at is None and self.expires_at > now
