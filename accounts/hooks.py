"""Hooks: how higher apps take part in accounts' writes without accounts importing them.

The apps depend in one direction (docs/api-conventions.md, "Layers"): billing may import
accounts, never the reverse. Where an accounts write must be followed by work of a higher app
in the same transaction (a new user's starting credits), the higher app registers a callable
here from its AppConfig.ready(), and accounts calls whatever is registered. One explicit list
per moment, in registration order; no signals, so the call is visible where it happens.
"""

from collections.abc import Callable

from accounts.models import User

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

    `took_over` is True when the account existed before its owner proved the address: someone
    else registered it, so what that someone did with it (their history, the credits they
    spent) is cleared for the owner. Runs in the verifying transaction.
    """
    if hook not in _email_verified:
        _email_verified.append(hook)
    return hook


def email_verified(user: User, *, took_over: bool) -> None:
    for hook in _email_verified:
        hook(user, took_over)


_user_erased: list[UserHook] = []


def on_user_erased(hook: UserHook) -> UserHook:
    """Register `hook(user)` to delete what another app keeps of a user being erased; runs in
    the erasing transaction, before the user row is anonymised."""
    if hook not in _user_erased:
        _user_erased.append(hook)
    return hook


def user_erased(user: User) -> None:
    for hook in _user_erased:
        hook(user)
