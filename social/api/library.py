"""Campaigns, the media library and the social settings (social.md section 6)."""

from typing import Any
from uuid import UUID

from django.db.models import Count, QuerySet
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import generics, serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle

from accounts.authentication import request_user
from accounts.roles import Action
from accounts.scopes import KEYS_REFUSED, Scope
from core.api.envelope import Envelope
from core.api.parsers import BoundedJSONParser
from core.api.serializers import BodySerializer, TimeZoneField
from core.inputs import UNSET
from social.api.providers import ProviderField
from social.api.scoping import WorkspaceView
from social.connections import SettingsInput, settings_update
from social.content import (
    DOCUMENT_TYPES,
    IMAGE_TYPES,
    MAX_ALT,
    VIDEO_TYPES,
    CampaignInput,
    campaign_delete,
    campaign_save,
    media_alt_set,
    media_delete,
    media_register,
    type_limit,
    workspace_campaign,
)
from social.content import media_upload as media_store
from social.models import (
    NOTIFICATION_PREFERENCES,
    Campaign,
    CampaignStatus,
    MediaItem,
    SocialSettings,
)
from social.selectors import Preferences, media_list, settings_seen
from social.throttling import MediaUploadThrottle

Deleted = inline_serializer("LibraryItemDeleted", {"success": serializers.BooleanField()})

# --- Campaigns --------------------------------------------------------------------------------


class CampaignSerializer(serializers.ModelSerializer[Campaign]):
    postCount = serializers.IntegerField(source="post_count", read_only=True, default=0)
    budget = serializers.DecimalField(
        max_digits=14, decimal_places=2, coerce_to_string=False, allow_null=True
    )

    class Meta:
        model = Campaign
        fields = (
            "id",
            "name",
            "description",
            "color",
            "start_date",
            "end_date",
            "budget",
            "goal",
            "status",
            "created_at",
            "updated_at",
            "postCount",
        )


def campaigns_counted(workspace_id: UUID) -> QuerySet[Campaign]:
    return Campaign.objects.filter(workspace_id=workspace_id).annotate(post_count=Count("posts"))


class CampaignListView(WorkspaceView, generics.ListAPIView[Campaign]):
    api_key_scopes = {"GET": Scope.POSTS_READ, "POST": Scope.POSTS_WRITE}
    workspace_actions = {"GET": Action.READ, "POST": Action.WRITE}
    schema_error_statuses = (404,)  # an `id` that names no campaign of yours
    serializer_class = CampaignSerializer
    queryset = Campaign.objects.none()

    class InputSerializer(BodySerializer):
        id = serializers.UUIDField(required=False)
        name = serializers.CharField(max_length=120, required=False)
        description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
        color = serializers.RegexField(
            r"^#[0-9A-Fa-f]{6}$",
            required=False,
            allow_blank=True,
            error_messages={"invalid": "A color is #RRGGBB."},
        )
        start_date = serializers.DateField(required=False, allow_null=True)
        end_date = serializers.DateField(required=False, allow_null=True)
        budget = serializers.DecimalField(
            max_digits=14,
            decimal_places=2,
            min_value=0,
            required=False,
            allow_null=True,
            coerce_to_string=False,  # a number, as answered (a string is taken too)
        )
        goal = serializers.CharField(max_length=500, required=False, allow_blank=True)
        status = serializers.ChoiceField(choices=CampaignStatus.choices, required=False)

        def schema_constraints(self) -> dict[str, Any]:
            # A new campaign needs its name (campaign_save); an update names its `id`.
            return {"anyOf": [{"required": ["name"]}, {"required": ["id"]}]}

    def get_queryset(self) -> QuerySet[Campaign]:
        return campaigns_counted(self.workspace_id).order_by("-created_at", "-id")

    @extend_schema(operation_id="social_campaigns_list", tags=["social"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="social_campaigns_save",
        tags=["social"],
        request=InputSerializer,
        responses=CampaignSerializer,
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        changes = CampaignInput(
            name=data.get("name", UNSET),
            description=data.get("description", UNSET),
            color=data.get("color", UNSET),
            start_date=data.get("start_date", UNSET),
            end_date=data.get("end_date", UNSET),
            budget=data.get("budget", UNSET),
            goal=data.get("goal", UNSET),
            status=data.get("status", UNSET),
        )
        campaign = campaign_save(
            workspace_id=self.workspace_id,
            user=request_user(request),
            changes=changes,
            campaign_id=data.get("id"),
        )
        data = CampaignSerializer(campaigns_counted(self.workspace_id).get(pk=campaign.pk)).data
        return Response(Envelope(data=data, message="Campaign saved"))


class CampaignDetailView(WorkspaceView):
    api_key_scopes = {"GET": Scope.POSTS_READ, "DELETE": Scope.POSTS_WRITE}
    workspace_actions = {"GET": Action.READ, "DELETE": Action.WRITE}

    @extend_schema(
        operation_id="social_campaigns_get", tags=["social"], responses=CampaignSerializer
    )
    def get(self, request: Request, campaign_id: UUID) -> Response:
        found = workspace_campaign(workspace_id=self.workspace_id, campaign_id=campaign_id)
        counted = campaigns_counted(self.workspace_id).get(pk=found.pk)
        return Response(CampaignSerializer(counted).data)

    @extend_schema(
        operation_id="social_campaigns_delete", tags=["social"], responses={200: Deleted}
    )
    def delete(self, request: Request, campaign_id: UUID) -> Response:
        campaign_delete(workspace_id=self.workspace_id, campaign_id=campaign_id)
        return Response(Envelope(data={"success": True}, message="Campaign deleted"))


# --- Media ------------------------------------------------------------------------------------


class MediaSerializer(serializers.ModelSerializer[MediaItem]):
    class Meta:
        model = MediaItem
        fields = (
            "id",
            "type",
            "url",
            "filename",
            "size",
            "width",
            "height",
            "duration",
            "pages",
            "alt",
            "created_at",
        )


class MediaListView(WorkspaceView, generics.ListAPIView[MediaItem]):
    """GET the library; POST registers a hosted file (JSON) or uploads one (multipart, part
    `file`)."""

    api_key_scopes = {"GET": Scope.POSTS_READ, "POST": Scope.POSTS_WRITE}
    workspace_actions = {"GET": Action.READ, "POST": Action.WRITE}
    serializer_class = MediaSerializer
    queryset = MediaItem.objects.none()
    parser_classes = [BoundedJSONParser, MultiPartParser]

    class RegisterSerializer(BodySerializer):
        type = serializers.ChoiceField(choices=sorted(IMAGE_TYPES | VIDEO_TYPES | DOCUMENT_TYPES))
        url = serializers.URLField(max_length=2000)
        filename = serializers.CharField(max_length=255, required=False, allow_blank=True)
        size = serializers.IntegerField(min_value=1)
        alt = serializers.CharField(max_length=MAX_ALT, required=False, allow_blank=True)

        def validate_url(self, value: str) -> str:
            if not value.lower().startswith(("http://", "https://")):
                raise serializers.ValidationError("Enter an http or https URL.")
            return value

        # An image's as declared; a video's are read from the hosted file by the service
        # (these are accepted and not kept, so clients that send them keep working).
        duration = serializers.FloatField(required=False, min_value=0)
        width = serializers.IntegerField(required=False, min_value=1)
        height = serializers.IntegerField(required=False, min_value=1)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            limit = type_limit(attrs["type"])
            if attrs["size"] > limit:
                raise serializers.ValidationError({"size": [f"At most {limit} bytes."]})
            return attrs

    class UploadSerializer(BodySerializer):
        file = serializers.FileField(allow_empty_file=False)
        alt = serializers.CharField(max_length=MAX_ALT, required=False, allow_blank=True)

    def get_throttles(self) -> list[BaseThrottle]:
        # The library's own upload rate, besides every view's.
        return [*super().get_throttles(), MediaUploadThrottle()]

    def get_queryset(self) -> QuerySet[MediaItem]:
        return media_list(workspace_id=self.workspace_id)

    @extend_schema(operation_id="social_media_list", tags=["social"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="social_media_add",
        tags=["social"],
        request={"application/json": RegisterSerializer, "multipart/form-data": UploadSerializer},
        responses=MediaSerializer,
    )
    def post(self, request: Request) -> Response:
        user = request_user(request)
        if (request.content_type or "").startswith("multipart/form-data"):
            upload = self.UploadSerializer(data=request.data)
            upload.is_valid(raise_exception=True)
            item = media_store(
                workspace_id=self.workspace_id,
                user=user,
                upload=upload.validated_data["file"],
                alt=upload.validated_data.get("alt", ""),
            )
        else:
            register = self.RegisterSerializer(data=request.data)
            register.is_valid(raise_exception=True)
            data = register.validated_data
            item = media_register(
                workspace_id=self.workspace_id,
                user=user,
                type=data["type"],
                url=data["url"],
                filename=data.get("filename", ""),
                size=data["size"],
                alt=data.get("alt", ""),
                duration=data.get("duration"),
                width=data.get("width"),
                height=data.get("height"),
            )
        return Response(Envelope(data=MediaSerializer(item).data, message="Media added"))


class MediaDetailView(WorkspaceView):
    api_key_scopes = {"PATCH": Scope.POSTS_WRITE, "DELETE": Scope.POSTS_WRITE}
    workspace_actions = {"PATCH": Action.WRITE, "DELETE": Action.WRITE}

    class AltSerializer(BodySerializer):
        alt = serializers.CharField(max_length=MAX_ALT, allow_blank=True, trim_whitespace=False)

    @extend_schema(
        operation_id="social_media_update",
        tags=["social"],
        request=AltSerializer,
        responses=MediaSerializer,
    )
    def patch(self, request: Request, media_id: UUID) -> Response:
        serializer = self.AltSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        item = media_alt_set(
            workspace_id=self.workspace_id,
            media_id=media_id,
            alt=serializer.validated_data["alt"],
        )
        return Response(Envelope(data=MediaSerializer(item).data, message="Media updated"))

    @extend_schema(operation_id="social_media_delete", tags=["social"], responses={200: Deleted})
    def delete(self, request: Request, media_id: UUID) -> Response:
        media_delete(workspace_id=self.workspace_id, media_id=media_id)
        return Response(Envelope(data={"success": True}, message="Media deleted"))


# --- Settings ---------------------------------------------------------------------------------


@extend_schema_field(
    {
        "type": "object",
        "properties": {name: {"type": "boolean"} for name in NOTIFICATION_PREFERENCES},
        "additionalProperties": False,
    }
)
class PreferencesField(serializers.DictField):
    """On or off per notification preference; the service refuses a key it does not know."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(child=serializers.BooleanField(), **kwargs)


class SettingsView(WorkspaceView):
    # The workspace's settings (changed by its owners and admins: the service checks) and the
    # caller's own notification preferences: sessions only.
    api_key_scopes = KEYS_REFUSED
    workspace_actions = {"GET": Action.READ, "PUT": Action.READ}

    class SettingsSerializer(BodySerializer):
        defaultPlatform = ProviderField(required=False, allow_null=True)
        defaultTimezone = TimeZoneField(required=False)
        autoRetry = serializers.BooleanField(required=False)
        requireAltText = serializers.BooleanField(required=False)
        notificationPreferences = PreferencesField(required=False)

    @extend_schema(
        operation_id="social_settings_get", tags=["social"], responses=SettingsSerializer
    )
    def get(self, request: Request) -> Response:
        membership = self.membership
        return Response(
            settings_data(
                *settings_seen(workspace_id=membership.workspace_id, user_id=membership.user_id)
            )
        )

    @extend_schema(
        operation_id="social_settings_update",
        tags=["social"],
        request=SettingsSerializer,
        responses=SettingsSerializer,
        description="The workspace's settings change for owners and admins only (403 for "
        "the others); `notificationPreferences` are the caller's own, in every workspace. "
        f"Preference keys: {', '.join(NOTIFICATION_PREFERENCES)}.",
    )
    def put(self, request: Request) -> Response:
        serializer = self.SettingsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        changes = SettingsInput(
            default_platform=data.get("defaultPlatform", UNSET),
            default_timezone=data.get("defaultTimezone", UNSET),
            auto_retry=data.get("autoRetry", UNSET),
            require_alt_text=data.get("requireAltText", UNSET),
            notification_preferences=data.get("notificationPreferences", UNSET),
        )
        updated = settings_update(actor=self.membership, changes=changes)
        return Response(Envelope(data=settings_data(*updated), message="Settings saved"))


def settings_data(found: SocialSettings, preferences: Preferences) -> dict[str, Any]:
    """The settings as SettingsView.SettingsSerializer describes them: the workspace's, and
    every preference of the caller's named (on unless they turned it off)."""
    return {
        "defaultPlatform": found.default_platform,
        "defaultTimezone": found.default_timezone,
        "autoRetry": found.auto_retry,
        "requireAltText": found.require_alt_text,
        "notificationPreferences": {
            key: preferences.wants(key) for key in NOTIFICATION_PREFERENCES
        },
    }
