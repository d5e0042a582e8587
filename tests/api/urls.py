"""A URLconf for convention tests: probe views mounted beside the real routes."""

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, URLResolver, path
from rest_framework import generics, serializers
from rest_framework.exceptions import Throttled
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import User
from config.urls import urlpatterns as real_urlpatterns
from core.api.envelope import Envelope
from core.api.routing import api_fallback, versioned
from core.errors import ConflictError


class UserItemSerializer(serializers.ModelSerializer[User]):
    class Meta:
        model = User
        fields = ("id", "email", "created_at")


class ItemListView(generics.ListAPIView[User]):
    permission_classes = [AllowAny]
    serializer_class = UserItemSerializer
    sort_fields = {"created_at": "created_at", "email": "email"}

    def get_queryset(self) -> Any:
        return User.objects.all()


class SmallItemListView(ItemListView):
    page_size = 10
    max_page_size = 50


class EchoView(APIView):
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer[Any]):
        name = serializers.CharField(max_length=5)
        count = serializers.IntegerField()

    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(Envelope(data=serializer.validated_data, message="Echoed"))


class WriteView(APIView):
    """Read, then write, in one transaction: the pattern that deadlocks deferred SQLite."""

    permission_classes = [AllowAny]

    def post(self, request: Request) -> Response:
        with transaction.atomic():
            count = User.objects.count()
            user = User.objects.create_user(email=request.data["email"])
        return Response({"id": str(user.id), "before": count})


class RaisingView(APIView):
    permission_classes = [AllowAny]

    def get(self, request: Request, kind: str) -> Response:
        if kind == "boom":
            raise RuntimeError("secret internals: SELECT * FROM accounts_user")
        if kind == "conflict":
            raise ConflictError("Already connected.", details={"accountId": "abc"})
        if kind == "missing":
            raise Http404("no such thing")
        if kind == "forbidden":
            raise PermissionDenied
        if kind == "throttled":
            raise Throttled(wait=7)
        return Response({"kind": kind})


def django_boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("plain Django view failure")


probe_patterns: list[URLPattern | URLResolver] = [
    path("_probe/items", ItemListView.as_view()),
    path("_probe/small-items", SmallItemListView.as_view()),
    path("_probe/echo", EchoView.as_view()),
    path("_probe/write", WriteView.as_view()),
    path("_probe/raise/<str:kind>", RaisingView.as_view()),
    path("_probe/django-boom", django_boom),
]

urlpatterns = [*versioned(probe_patterns), *real_urlpatterns, api_fallback()]
