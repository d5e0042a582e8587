"""App configuration: the social hub's part in accounts' writes and in the event channel, and
the fields its batch reads take `__any` on."""

from django.apps import AppConfig

KEPT_AT_TAKEOVER = "what was written stays: it may be the owner's own (docs/accounts.md)"
WORKSPACE_DATA = (
    "the workspace's, not the member's: it goes with the workspace (the personal one, and "
    "each the user was the last owner of, are deleted by the erasure); a shared workspace "
    "that outlives the user keeps it (docs/workspaces.md)"
)


class SocialConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "social"

    def ready(self) -> None:
        from accounts.hooks import on_workspace_deleting, on_workspace_rules_changed, user_data
        from core.bulk import allow_any
        from social.connections import (
            accounts_release,
            connect_states_forget,
            social_erase,
            workspace_erase,
        )
        from social.models import (
            ApprovalRequest,
            Campaign,
            ConnectState,
            MediaItem,
            Post,
            PostComment,
            ScheduledRecord,
            ShareLink,
            SocialAccount,
            SocialSettings,
        )

        # The hub's data belongs to workspaces (docs/workspaces.md): it goes with its
        # workspace, deleted by its owner or with its last owner's erasure (accounts'
        # workspaces_erase runs this hook for each).
        on_workspace_deleting(workspace_erase)
        # Connected accounts act elsewhere in the name of whoever connected them: none they
        # connected survives a takeover (their waiting records are cancelled with them).
        for acting in (SocialAccount, ScheduledRecord):
            user_data(acting, takeover=accounts_release, erasure=WORKSPACE_DATA)
        user_data(ConnectState, takeover=connect_states_forget, erasure=social_erase)
        for content in (Post, Campaign, MediaItem, ApprovalRequest, PostComment, ShareLink):
            user_data(content, takeover=KEPT_AT_TAKEOVER, erasure=WORKSPACE_DATA)

        # `__any` (core/bulk.py) on the fields social's batch reads use: the posts' records and
        # statuses (content/services/post_status.py), the workspaces' settings (selectors.py).
        allow_any(Post, "pk")
        allow_any(ScheduledRecord, "pk", "post")
        allow_any(SocialSettings, "workspace")

        import social.tasks  # noqa: F401 (registers the tasks its services queue by name)
        from notifications.events import present, subscribe
        from social.connections import ACCOUNT_PREFERENCES, accounts_notify, at_risk_notify
        from social.output import post_changed_data
        from social.planning import (
            approval_gate_on_edit,
            approval_rule_changed,
            approvals_notify,
            series_after_outcomes,
        )
        from social.publishing import records_notify

        # A post's records on the live feed as the API shows them (the services hand the models).
        present("post.changed", post_changed_data)
        for event in ("post.published", "post.failed", "post.unconfirmed"):
            subscribe(event, records_notify)
            subscribe(event, series_after_outcomes)  # a recurring post's next occurrence
        subscribe("post.at_risk", at_risk_notify)
        # An edit of a post's content: held again unless that version was approved.
        subscribe("post.updated", approval_gate_on_edit)
        for event in (
            "approval.requested",
            "approval.approved",
            "approval.rejected",
            "post.commented",
        ):
            subscribe(event, approvals_notify)
        on_workspace_rules_changed(approval_rule_changed)
        for event in ACCOUNT_PREFERENCES:
            subscribe(event, accounts_notify)
