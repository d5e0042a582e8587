"""Notifications about what can act in the user's name: a new API key (accounts'
api_key_created hook, registered in NotificationsConfig.ready)."""

from accounts.models import ApiKey
from notifications.models import NotificationType
from notifications.services.center import notify


def api_key_created_notify(key: ApiKey) -> None:
    """A system alert naming the new key, in the creating transaction: a key made by someone
    else (a stolen session) does not go unseen."""
    notify(
        user=key.user,
        type=NotificationType.SYSTEM_ALERT,
        title="New API key created",
        message=(
            f'The API key "{key.name}" ({key.prefix}…) was created in the workspace '
            f'"{key.workspace.name}" with the scopes {", ".join(key.scopes)}. If it was not '
            "you, revoke it in your API keys and sign out everywhere."
        ),
        metadata={
            "apiKeyId": str(key.pk),
            "workspaceId": str(key.workspace_id),
            "name": key.name,
            "prefix": key.prefix,
            "scopes": list(key.scopes),
        },
    )
