"""Admin for users: operators inspect accounts, roles, plans and credits."""

from django.contrib import admin
from django.db import models

from accounts.models import User


@admin.register(User)
class UserAdmin(admin.ModelAdmin[User]):
    list_display = (
        "email",
        "full_name",
        "role",
        "plan",
        "credits_remaining",
        "monthly_quota",
        "email_verified",
        "created_at",
    )
    list_filter = ("role", "plan", "email_verified")
    search_fields = ("email", "full_name")
    ordering = ("-created_at",)
    readonly_fields = ("id", "created_at", "last_login", "credits_remaining", "password")
    exclude = ("groups", "user_permissions")
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}
