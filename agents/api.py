"""Agent connections over HTTP (agents.md section 2): `GET /api/agents`, `PATCH
/api/agents/{id}` `{policy}`, `DELETE /api/agents/{id}` (revokes its credential). Sessions
only: an agent never manages agents, as a key never manages keys."""

from uuid import UUID

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.scopes import KEYS_REFUSED
from agents.models import AgentKind
from agents.output import agent_data
from agents.selectors import agent_list, agents_usage_today
from agents.services import agent_policy_update, agent_revoke
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer
from core.inputs import UNSET

MAX_PER_DAY = 100_000


class PolicySerializer(BodySerializer):
    autopublish = serializers.BooleanField(
        required=False, help_text="Publish, schedule and queue without an approval (default off)."
    )
    maxPostsPerDay = serializers.IntegerField(required=False, min_value=0, max_value=MAX_PER_DAY)
    creditBudgetPerDay = serializers.IntegerField(
        required=False, min_value=0, max_value=MAX_PER_DAY
    )
    accountIds = serializers.ListField(
        child=serializers.UUIDField(),
        required=False,
        allow_null=True,
        max_length=100,
        help_text="The accounts it may post to; null: every account of the workspace.",
    )


AgentSerializer = inline_serializer(
    "AgentConnection",
    {
        "id": serializers.UUIDField(),
        "name": serializers.CharField(),
        "kind": serializers.ChoiceField(choices=AgentKind.choices),
        "client": serializers.CharField(),
        "workspaceId": serializers.UUIDField(),
        "scopes": serializers.ListField(child=serializers.CharField()),
        "policy": PolicySerializer(),
        "last_used_at": serializers.DateTimeField(allow_null=True),
        "postsToday": serializers.IntegerField(),
        "creditsToday": serializers.IntegerField(),
        "created_at": serializers.DateTimeField(),
    },
)


class AgentListView(APIView):
    """The signed-in user's agent connections, in every workspace."""

    api_key_scopes = KEYS_REFUSED

    @extend_schema(operation_id="agents_list", tags=["agents"], responses=AgentSerializer)
    def get(self, request: Request) -> Response:
        connections = list(agent_list(user=request_user(request)))
        usage = agents_usage_today(connection_ids=[c.pk for c in connections])
        return Response([agent_data(c, usage.get(c.pk)) for c in connections])


class AgentDetailView(APIView):
    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (404,)

    class InputSerializer(BodySerializer):
        policy = PolicySerializer()

    @extend_schema(
        operation_id="agents_update",
        tags=["agents"],
        request=InputSerializer,
        responses=AgentSerializer,
    )
    def patch(self, request: Request, agent_id: UUID) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        policy = serializer.validated_data["policy"]
        connection = agent_policy_update(
            user=request_user(request),
            agent_id=agent_id,
            autopublish=policy.get("autopublish", UNSET),
            max_posts_per_day=policy.get("maxPostsPerDay", UNSET),
            credit_budget_per_day=policy.get("creditBudgetPerDay", UNSET),
            account_ids=policy.get("accountIds", UNSET),
        )
        usage = agents_usage_today(connection_ids=[connection.pk])
        return Response(agent_data(connection, usage.get(connection.pk)))

    @extend_schema(
        operation_id="agents_revoke",
        tags=["agents"],
        responses={200: inline_serializer("AgentRevoked", {"success": serializers.BooleanField()})},
    )
    def delete(self, request: Request, agent_id: UUID) -> Response:
        agent_revoke(user=request_user(request), agent_id=agent_id)
        return Response(Envelope(data={"success": True}, message="Agent connection revoked"))
