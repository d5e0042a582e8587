"""What the social hub keeps of a workspace, and of a user, when they go: a workspace's hub
data goes with the workspace (accounts.hooks.on_workspace_deleting); a user's erasure deletes
their personal workspace, and each shared one they were the last owner of, through it."""

from django.db import transaction

from accounts.models import User, Workspace
from social.connections.services.accounts import connect_states_forget, workspace_accounts_release
from social.content import media_erase
from social.models import (
    AccountQueue,
    AnalyticsRecord,
    Campaign,
    ConnectState,
    Post,
    PostCounter,
    SocialAccount,
    SocialSettings,
)


@transaction.atomic
def workspace_erase(workspace: Workspace) -> None:
    """The `on_workspace_deleting` hook: the workspace's accounts disconnected (revoked at the
    platforms after the commit), their waiting records cancelled, then its posts with their
    records and series, the accounts' queues, campaigns, analytics, settings, media items and
    their stored files, consents in flight and the accounts themselves deleted."""
    workspace_accounts_release(workspace, revoke=True)
    AnalyticsRecord.objects.filter(workspace=workspace).delete()
    Post.objects.filter(workspace=workspace).delete()  # its scheduled records and series with it
    AccountQueue.objects.filter(account__workspace=workspace).delete()
    PostCounter.objects.filter(workspace=workspace).delete()
    Campaign.objects.filter(workspace=workspace).delete()
    SocialSettings.objects.filter(workspace=workspace).delete()
    media_erase(workspace.pk)
    ConnectState.objects.filter(workspace=workspace).delete()
    SocialAccount.objects.filter(workspace=workspace).delete()  # their health with them


def social_erase(user: User) -> list[str]:
    """The user registry's erasure cleanup: the consents the user has in flight end. The
    rest of the hub is the workspaces' (see workspace_erase)."""
    return connect_states_forget(user)
