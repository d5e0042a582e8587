"""The OAuth endpoints (agents.md section 1; docs/agents.md): the discovery documents,
`POST /oauth/register`, `GET /oauth/authorize`, `POST /oauth/token` and `POST /oauth/revoke`
(the provider's own views), which answer in the protocols' shapes, and the web client's consent
call `GET/POST /api/oauth/requests/{id}`, which answers in the envelope, for a signed-in user."""

import json
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import extend_schema, inline_serializer
from oauth2_provider import views as provider_views
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.scopes import KEYS_REFUSED, Scope
from agents.api import PolicySerializer
from agents.oauth import metadata
from agents.oauth.clients import oauth_client_register
from agents.oauth.errors import OAuthProtocolError, OAuthRedirectError
from agents.oauth.services import Policy, oauth_authorize, oauth_request_decide, oauth_request_open
from core import ratelimit
from core.api.serializers import BodySerializer
from core.inputs import UNSET
from core.times import iso


def protocol_error(error: OAuthProtocolError) -> JsonResponse:
    response = JsonResponse(
        {"error": error.error, "error_description": error.description}, status=error.status
    )
    response["Cache-Control"] = "no-store"
    return response


class ProtectedResourceMetadataView(View):
    """RFC 9728: /mcp's document, at its own path and at the bare well-known one."""

    def get(self, request: HttpRequest) -> HttpResponse:
        return JsonResponse(metadata.protected_resource())


class AuthorizationServerMetadataView(View):
    """RFC 8414: the endpoints, what they take, the scopes."""

    def get(self, request: HttpRequest) -> HttpResponse:
        return JsonResponse(metadata.authorization_server())


@method_decorator(csrf_exempt, name="dispatch")
class RegisterView(View):
    """RFC 7591 dynamic client registration: 201 with the client's information, or an RFC
    7591 error body."""

    def post(self, request: HttpRequest) -> HttpResponse:
        try:
            body = json.loads(request.body or b"null")
        except ValueError:
            body = None
        try:
            registered = oauth_client_register(metadata=body, address=ratelimit.client_ip(request))
        except OAuthProtocolError as error:
            return protocol_error(error)
        response = JsonResponse(registered, status=201)
        response["Cache-Control"] = "no-store"
        return response


class AuthorizeView(View):
    """The authorization request: to the web client's consent page, or an error (400 JSON
    for an unknown client or redirect URI, a redirect to the client otherwise)."""

    def get(self, request: HttpRequest) -> HttpResponse:
        try:
            return HttpResponseRedirect(oauth_authorize(request=request))
        except OAuthProtocolError as error:
            return protocol_error(error)
        except OAuthRedirectError as redirect:
            return _to_client(redirect.url)


def _to_client(url: str) -> HttpResponse:
    """A redirect to the client's registered URI, whatever its scheme (a loopback http one)."""
    response = HttpResponse(status=302)
    response["Location"] = url
    return response


class TokenView(provider_views.TokenView):
    """RFC 6749 token endpoint (the provider's): a code with its `code_verifier`, or a refresh
    token, rotated (the one used stops working)."""


class RevokeView(provider_views.RevokeTokenView):
    """RFC 7009 revocation (the provider's): an access or a refresh token, with `client_id`."""


# --- The consent call ---------------------------------------------------------------------------

OAuthRequestSerializer = inline_serializer(
    "OAuthAuthorization",
    {
        "id": serializers.UUIDField(),
        "client": inline_serializer(
            "OAuthClient", {"id": serializers.CharField(), "name": serializers.CharField()}
        ),
        "redirectHost": serializers.CharField(),
        "scopes": serializers.ListField(child=serializers.CharField()),
        "expires_at": serializers.DateTimeField(),
    },
)
RedirectSerializer = inline_serializer("OAuthDecision", {"redirectUrl": serializers.CharField()})


def _request_data(pending: Any) -> dict[str, Any]:
    return {
        "id": str(pending.pk),
        "client": {"id": pending.application.client_id, "name": pending.application.name},
        "redirectHost": urlsplit(pending.credentials["redirect_uri"]).hostname or "",
        "scopes": list(pending.scopes),
        "expires_at": iso(pending.expires_at),
    }


class OAuthRequestView(APIView):
    """What a client asks (`GET`) and the user's one decision (`POST`). Sessions only; another
    user's request is a 404, a decided or expired one a 410."""

    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (404, 410)

    class InputSerializer(BodySerializer):
        approve = serializers.BooleanField()
        scopes = serializers.ListField(
            child=serializers.ChoiceField(choices=Scope.choices), required=False, default=list
        )
        workspaceId = serializers.UUIDField(required=False, allow_null=True, default=None)
        policy = PolicySerializer(required=False)

    @extend_schema(
        operation_id="oauth_request_get", tags=["agents"], responses=OAuthRequestSerializer
    )
    def get(self, request: Request, oauth_request_id: UUID) -> Response:
        pending = oauth_request_open(user=request_user(request), request_id=oauth_request_id)
        return Response(_request_data(pending))

    @extend_schema(
        operation_id="oauth_request_decide",
        tags=["agents"],
        request=InputSerializer,
        responses=RedirectSerializer,
    )
    def post(self, request: Request, oauth_request_id: UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        policy = data.get("policy") or {}
        redirect = oauth_request_decide(
            user=request_user(request),
            request_id=oauth_request_id,
            approve=data["approve"],
            scopes=data["scopes"],
            workspace_id=data["workspaceId"],
            policy=Policy(
                autopublish=policy.get("autopublish", UNSET),
                max_posts_per_day=policy.get("maxPostsPerDay", UNSET),
                credit_budget_per_day=policy.get("creditBudgetPerDay", UNSET),
                account_ids=policy.get("accountIds", UNSET),
            ),
        )
        return Response({"redirectUrl": redirect})
