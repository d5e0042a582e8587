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

_user_created: list[UserHook] = []


def on_user_created(hook: UserHook) -> UserHook:
    """Register `hook(user)` to run inside the transaction that creates each user."""
    if hook not in _user_created:
        _user_created.append(hook)
    return hook


def user_created(user: User) -> None:
    for hook in _user_created:
        hook(user)
