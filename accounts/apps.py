"""App configuration."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self) -> None:
        from accounts import schema  # noqa: F401  (registers the OpenAPI auth extension)
        from accounts.hooks import user_data
        from accounts.services.api_keys import api_keys_erase, api_keys_revoke_all
        from accounts.services.sessions import sessions_end_all
        from accounts.services.workspaces import invitations_revoke_sent, workspaces_erase
        from core.idempotency import idempotency_forget

        # Sessions (their refresh tokens) and stored replies end at a takeover and an erasure.
        user_data(
            "token_blacklist.OutstandingToken", takeover=sessions_end_all, erasure=sessions_end_all
        )
        user_data("core.IdempotencyRecord", takeover=idempotency_forget, erasure=idempotency_forget)
        # A key acts in the user's name: none made before the owner proved the address survives.
        user_data("accounts.ApiKey", takeover=api_keys_revoke_all, erasure=api_keys_erase)
        user_data(
            "admin.LogEntry",
            takeover="staff actions: the operators' audit trail",
            erasure="staff actions: the operators' audit trail",
        )
        # Workspaces (docs/workspaces.md): an erasure removes the personal one, and each
        # shared one the user is the last owner of, with all they hold; the user leaves the
        # rest. A takeover revokes the invitations the account sent; its memberships stay,
        # in sight of the address's owner, who can remove any member.
        kept = "memberships: the address's owner sees every member and can remove them"
        user_data("accounts.Workspace", takeover=kept, erasure=workspaces_erase)
        user_data("accounts.Membership", takeover=kept, erasure=workspaces_erase)
        user_data("accounts.Invitation", takeover=invitations_revoke_sent, erasure=workspaces_erase)
