"""Hooks: how higher apps take part in accounts' writes without accounts importing them.

The apps depend in one direction (docs/api-conventions.md, "Layers"): billing may import
accounts, never the reverse. Where an accounts write must be followed by work of a higher app
in the same transaction (a new user's starting credits), the higher app registers a callable
here from its AppConfig.ready(), and accounts calls whatever is registered. One explicit list
per moment, in registration order; no signals, so the call is visible where it happens.
"""

from collections.abc import Callable
from dataclasses import dataclass
from uuid import UUID

from django.db.models import Model

from accounts.models import ApiKey, User, Workspace

UserHook = Callable[[User], None]
VerifiedHook = Callable[[User, bool], None]

_user_created: list[UserHook] = []
_email_verified: list[VerifiedHook] = []


def on_user_created(hook: UserHook) -> UserHook:
    """Register `hook(user)` to run inside the transaction that creates each user."""
    if hook not in _user_created:
        _user_created.append(hook)
    return hook


def user_created(user: User) -> None:
    for hook in _user_created:
        hook(user)


def on_email_verified(hook: VerifiedHook) -> VerifiedHook:
    """Register `hook(user, took_over)` for an address's first verification (magic link).

    `took_over` is True when the account existed before its owner proved the address (the
    registry's takeover cleanups have run). Runs in the verifying transaction.
    """
    if hook not in _email_verified:
        _email_verified.append(hook)
    return hook


def email_verified(user: User, *, took_over: bool) -> None:
    for hook in _email_verified:
        hook(user, took_over)


# --- What each app keeps of a user: the one registry for takeover and erasure ----------------

# A cleanup takes the user and returns what it removed, in words for the user ("2 webhook
# endpoints"), or nothing. A string in its place says why those rows stay.
Cleanup = Callable[[User], list[str] | None]


@dataclass(frozen=True, slots=True)
class UserData:
    """One model's rows of a user: what a takeover does with them (the first magic-link
    verification of an address someone registered before: nothing that sends data out or
    acts elsewhere may survive it) and what erasure does (`DELETE /api/auth/me`)."""

    model: str  # "app_label.ModelName"
    takeover: Cleanup | str
    erasure: Cleanup | str


_user_data: dict[str, UserData] = {}


def user_data(model: type[Model] | str, *, takeover: Cleanup | str, erasure: Cleanup | str) -> None:
    """Declare a model holding a user's rows, from the owning app's AppConfig.ready(). A
    test fails for any model with a foreign key to the user that no app declared."""
    label = model if isinstance(model, str) else model._meta.label
    _user_data[label] = UserData(model=label, takeover=takeover, erasure=erasure)


def user_data_registry() -> dict[str, UserData]:
    return dict(_user_data)


def _run(cleanups: dict[str, Cleanup | str], user: User) -> dict[str, list[str]]:
    """Run each cleanup once (one may cover several models); what each removed, by the label
    of the first model it was declared for."""
    removed: dict[str, list[str]] = {}
    done: list[Cleanup] = []
    for label, cleanup in cleanups.items():
        if callable(cleanup) and cleanup not in done:
            done.append(cleanup)
            if what := cleanup(user):
                removed[label] = list(what)
    return removed


def user_takeover_removals(user: User) -> dict[str, list[str]]:
    """Run every takeover cleanup in the verifying transaction; what they removed, by model
    label ("social.SocialAccount": ["1 connected social account(s) (...)"])."""
    return _run({label: data.takeover for label, data in _user_data.items()}, user)


def user_taken_over(user: User) -> list[str]:
    """Run every takeover cleanup in the verifying transaction; what they removed."""
    return [what for removed in user_takeover_removals(user).values() for what in removed]


def user_erased(user: User) -> None:
    """Run every erasure cleanup in the erasing transaction, before the row is anonymised."""
    _run({label: data.erasure for label, data in _user_data.items()}, user)


# What a takeover removed, by model label: the cleanups' words, and the user's password under
# REMOVED_LOGIN.
Removals = dict[str, list[str]]
REMOVED_LOGIN = "accounts.User.password"
ReclaimedHook = Callable[[User, Removals], None]
_reclaimed: list[ReclaimedHook] = []


def on_account_reclaimed(hook: ReclaimedHook) -> ReclaimedHook:
    """Register `hook(user, removed)`: the owner proved the address of an account that existed
    before; `removed` says what was revoked, by model label (notifications tells the user)."""
    if hook not in _reclaimed:
        _reclaimed.append(hook)
    return hook


def account_reclaimed(user: User, removed: Removals) -> None:
    for hook in _reclaimed:
        hook(user, removed)


RevokedHook = Callable[[User, str | None], None]
_sessions_revoked: list[RevokedHook] = []


def on_sessions_revoked(hook: RevokedHook) -> RevokedHook:
    """Register `hook(user, sid)` for a revocation: one session family (`sid`), or every session
    of the user (`sid` None: logout everywhere, takeover, erasure). Runs in the revoking
    transaction; what the hook starts (closing open live-feed streams) follows its commit."""
    if hook not in _sessions_revoked:
        _sessions_revoked.append(hook)
    return hook


def sessions_revoked(user: User, sid: str | None) -> None:
    for hook in _sessions_revoked:
        hook(user, sid)


ApiKeyHook = Callable[[ApiKey], None]
_api_key_created: list[ApiKeyHook] = []


def on_api_key_created(hook: ApiKeyHook) -> ApiKeyHook:
    """Register `hook(key)` for a new API key (notifications tells its owner). Runs in the
    creating transaction."""
    if hook not in _api_key_created:
        _api_key_created.append(hook)
    return hook


def api_key_created(key: ApiKey) -> None:
    for hook in _api_key_created:
        hook(key)


WorkspaceHook = Callable[[Workspace], None]
_workspace_deleting: list[WorkspaceHook] = []


def on_workspace_deleting(hook: WorkspaceHook) -> WorkspaceHook:
    """Register `hook(workspace)`: the workspace is about to be deleted (by its owner, or with
    its last owner's erasure); the hook removes what its app keeps of it. Runs in the deleting
    transaction, before the workspace's members and invitations go."""
    if hook not in _workspace_deleting:
        _workspace_deleting.append(hook)
    return hook


def workspace_deleting(workspace: Workspace) -> None:
    for hook in _workspace_deleting:
        hook(workspace)


_workspace_rules_changed: list[WorkspaceHook] = []


def on_workspace_rules_changed(hook: WorkspaceHook) -> WorkspaceHook:
    """Register `hook(workspace)`: the workspace's rules changed (whether its posts need an
    approval); the hook applies them to what waits. Runs in the changing transaction."""
    if hook not in _workspace_rules_changed:
        _workspace_rules_changed.append(hook)
    return hook


def workspace_rules_changed(workspace: Workspace) -> None:
    for hook in _workspace_rules_changed:
        hook(workspace)


MembershipHook = Callable[[UUID, UUID, bool], None]
_membership_changed: list[MembershipHook] = []


def on_membership_changed(hook: MembershipHook) -> MembershipHook:
    """Register `hook(user_id, workspace_id, reads)`: the user joined a workspace, changed role
    in it, left it or saw it deleted; `reads`: whether they may now read its data (and so
    receive its events: the live feed's streams follow at once). Runs in the changing
    transaction."""
    if hook not in _membership_changed:
        _membership_changed.append(hook)
    return hook


def membership_changed(user_id: UUID, workspace_id: UUID, *, reads: bool) -> None:
    for hook in _membership_changed:
        hook(user_id, workspace_id, reads)
