"""accounts' routes (mounted under /api/ and /api/v1/ by config.urls)."""

from django.urls import path

from accounts.api import api_keys, auth, invitations, members, workspaces

urlpatterns = [
    path("auth/login", auth.LoginView.as_view(), name="auth-login"),
    path("auth/magic-link", auth.MagicLinkView.as_view(), name="auth-magic-link"),
    path("auth/magic-link/verify", auth.MagicLinkVerifyView.as_view(), name="auth-magic-verify"),
    path("auth/refresh", auth.RefreshView.as_view(), name="auth-refresh"),
    path("auth/logout", auth.LogoutView.as_view(), name="auth-logout"),
    path("auth/me", auth.MeView.as_view(), name="auth-me"),
    path("auth/api-keys", api_keys.ApiKeyListView.as_view(), name="auth-api-keys"),
    path("auth/api-keys/<uuid:key_id>", api_keys.ApiKeyDetailView.as_view(), name="auth-api-key"),
    path("workspaces", workspaces.WorkspaceListView.as_view(), name="workspaces"),
    path(
        "workspaces/<uuid:workspace_id>",
        workspaces.WorkspaceDetailView.as_view(),
        name="workspace",
    ),
    path(
        "workspaces/<uuid:workspace_id>/members",
        members.MemberListView.as_view(),
        name="workspace-members",
    ),
    path(
        "workspaces/<uuid:workspace_id>/members/<uuid:user_id>",
        members.MemberDetailView.as_view(),
        name="workspace-member",
    ),
    path(
        "workspaces/<uuid:workspace_id>/invitations",
        invitations.InvitationListView.as_view(),
        name="workspace-invitations",
    ),
    path(
        "workspaces/<uuid:workspace_id>/invitations/<uuid:invitation_id>",
        invitations.InvitationDetailView.as_view(),
        name="workspace-invitation",
    ),
    path(
        "invitations/accept", invitations.InvitationAcceptView.as_view(), name="invitation-accept"
    ),
]
