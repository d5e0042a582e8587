"""The platforms list (social.md sections 1 and 13): the networks' registry as clients see it."""

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import Scope
from social.networks import NETWORKS


class PlatformListView(APIView):
    api_key_scopes = {"GET": Scope.ACCOUNTS_READ}

    class OutputSerializer(serializers.Serializer[Any]):
        provider = serializers.CharField()
        name = serializers.CharField()
        connectMethod = serializers.CharField()
        configured = serializers.BooleanField()
        limits = serializers.DictField()
        capabilities = serializers.DictField()

    @extend_schema(
        operation_id="social_platforms", tags=["social"], responses=OutputSerializer(many=True)
    )
    def get(self, request: Request) -> Response:
        platforms = [
            {
                "provider": network.provider,
                "name": network.name,
                "connectMethod": network.connect_method,
                "configured": network.configured,
                "limits": network.limits,
                "capabilities": network.capabilities_json(),
            }
            for network in NETWORKS.values()
        ]
        return Response(self.OutputSerializer(platforms, many=True).data)
