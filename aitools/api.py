"""AI endpoints: the ten generators, history, and the stored gigs and proposals."""

from typing import Any, cast

import django_filters
from django.core.exceptions import ImproperlyConfigured
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.schema import ApiKeyAutoSchema
from accounts.scopes import Scope
from aitools.models import Generation, GenerationStatus, Gig, GigStatus, Proposal, ProposalStatus
from aitools.selectors import (
    generation_get,
    generation_list,
    gig_get,
    gig_list,
    proposal_get,
    proposal_list,
)
from aitools.services import generation_enqueue, generation_run, record_delete, record_update
from aitools.tools import TOOLS, Tool
from core.api.envelope import Envelope
from core.api.routing import api_url
from core.api.serializers import BodySerializer

# --- Records -----------------------------------------------------------------------------------


class GigSerializer(serializers.ModelSerializer[Gig]):
    class Meta:
        model = Gig
        fields = ("id", "title", "description", "tags", "packages", "faq", "status", "created_at")


class ProposalSerializer(serializers.ModelSerializer[Proposal]):
    class Meta:
        model = Proposal
        fields = ("id", "title", "content", "status", "created_at")


class HistorySerializer(serializers.ModelSerializer[Generation]):
    creditsCharged = serializers.IntegerField(source="credits_charged")

    class Meta:
        model = Generation
        fields: tuple[str, ...] = ("id", "tool", "title", "status", "creditsCharged", "created_at")


PRODUCT_SERIALIZERS: dict[type[Any], type[serializers.ModelSerializer[Any]]] = {
    Gig: GigSerializer,
    Proposal: ProposalSerializer,
}


def result_of(generation: Generation) -> Any:
    """What the synchronous call answers as `data`: the stored record, or the output."""
    if generation.status != GenerationStatus.SUCCEEDED:
        return None
    product = TOOLS[generation.tool].product
    if product is not None and hasattr(generation, product.related_name):
        serializer = PRODUCT_SERIALIZERS[product.model]
        return serializer(getattr(generation, product.related_name)).data
    return generation.output


def wants_async(request: Request) -> bool:
    prefer = request.headers.get("Prefer", "")
    return any(token.strip().lower() == "respond-async" for token in prefer.split(","))


# --- The generators ----------------------------------------------------------------------------


class GenerateSchema(ApiKeyAutoSchema):
    """Each generator route is its own OpenAPI operation, described from its tool's row."""

    @property
    def tool(self) -> Tool:
        return cast(GenerateView, self.view).runs()

    def get_operation_id(self) -> str:
        return self.tool.name

    def get_tags(self) -> list[str]:
        return ["ai"]

    def get_summary(self) -> str:
        tool = self.tool
        return f"{tool.label} ({tool.cost} credit{'s' if tool.cost > 1 else ''})"

    def get_description(self) -> str:  # type: ignore[override]
        return (
            f"Costs {self.tool.cost} credit(s), taken before generation and refunded if the "
            "provider fails (502). With `Prefer: respond-async` the call answers 202 with the "
            "history entry; the result lands on it and an `ai_complete` notification follows."
        )

    def get_request_serializer(self) -> Any:
        return self.tool.input

    def get_response_serializers(self) -> Any:
        product = self.tool.product
        answer = PRODUCT_SERIALIZERS[product.model] if product is not None else self.tool.output
        return {200: answer, 202: HistorySerializer}

    def get_override_parameters(self) -> list[Any]:
        return [
            OpenApiParameter(
                "Prefer", str, OpenApiParameter.HEADER, description="`respond-async` to queue."
            )
        ]


class GenerateView(APIView):
    """One generator route; `tool` (given to as_view by aitools.urls) names the tool it runs."""

    api_key_scopes = {"POST": Scope.AI_WRITE}
    tool: Tool | None = None
    schema = GenerateSchema()
    schema_error_statuses = (401, 402, 502)
    schema_envelope_meta = {
        "type": "object",
        "required": ["tokensUsed", "provider"],
        "properties": {
            "tokensUsed": {"type": "integer", "example": 120},
            "provider": {"type": "string", "example": "offline"},
        },
    }

    def runs(self) -> Tool:
        if self.tool is None:
            raise ImproperlyConfigured("GenerateView.as_view(tool=...) names its tool.")
        return self.tool

    def post(self, request: Request) -> Response:
        user, tool = request_user(request), self.runs()
        serializer = tool.input(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        if wants_async(request):
            generation = generation_enqueue(user=user, tool=tool.name, data=data)
            location = api_url(request, "history-detail", pk=generation.pk)
            return Response(
                Envelope(
                    data=HistorySerializer(generation).data,
                    message="Generation started; the result will be on the history entry.",
                ),
                status=status.HTTP_202_ACCEPTED,
                headers={"Location": location, "Preference-Applied": "respond-async"},
            )
        generation = generation_run(user=user, tool=tool.name, data=data)
        return Response(
            Envelope(
                data=result_of(generation),
                meta={"tokensUsed": generation.tokens_used, "provider": generation.provider},
            )
        )


# --- History, gigs, proposals ------------------------------------------------------------------


class HistoryFilter(django_filters.FilterSet):
    tool = django_filters.ChoiceFilter(choices=[(name, name) for name in TOOLS])

    class Meta:
        model = Generation
        fields = ["tool"]


class HistoryListView(generics.ListAPIView[Generation]):
    """The user's AI calls, newest first (default page size 20)."""

    api_key_scopes = {"GET": Scope.AI_WRITE}
    serializer_class = HistorySerializer
    filterset_class = HistoryFilter
    page_size = 20
    sort_fields = {"created_at": "created_at", "tool": "tool"}
    queryset = Generation.objects.none()  # for the schema; get_queryset scopes to the user

    def get_queryset(self) -> Any:
        return generation_list(user=request_user(self.request))

    @extend_schema(operation_id="history_list", tags=["ai"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class HistoryDetailView(APIView):
    """One AI call: its status and, once done, its result (the async call's answer)."""

    api_key_scopes = {"GET": Scope.AI_WRITE}

    class OutputSerializer(HistorySerializer):
        tokensUsed = serializers.IntegerField(source="tokens_used")
        completedAt = serializers.DateTimeField(source="completed_at")
        result = serializers.SerializerMethodField()

        class Meta(HistorySerializer.Meta):
            fields = (
                *HistorySerializer.Meta.fields,
                "provider",
                "tokensUsed",
                "error",
                "completedAt",
                "result",
            )

        def get_result(self, generation: Generation) -> Any:
            return result_of(generation)

    @extend_schema(operation_id="history_detail", tags=["ai"], responses=OutputSerializer)
    def get(self, request: Request, pk: str) -> Response:
        generation = generation_get(user=request_user(request), pk=pk)
        return Response(self.OutputSerializer(generation).data)


class GigFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=GigStatus.choices)

    class Meta:
        model = Gig
        fields = ["status"]


class GigListView(generics.ListAPIView[Gig]):
    """The user's generated gigs (default page size 10)."""

    api_key_scopes = {"GET": Scope.AI_WRITE}
    serializer_class = GigSerializer
    filterset_class = GigFilter
    page_size = 10
    sort_fields = {"created_at": "created_at", "title": "title"}
    queryset = Gig.objects.none()

    def get_queryset(self) -> Any:
        return gig_list(user=request_user(self.request))

    @extend_schema(operation_id="gigs_list", tags=["ai"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


_DELETED = inline_serializer("Deleted", fields={"success": serializers.BooleanField()})


class RecordDetailView(APIView):
    """GET, PATCH and DELETE of one of the user's stored records; subclasses name the kind."""

    api_key_scopes = {"GET": Scope.AI_WRITE, "PATCH": Scope.AI_WRITE, "DELETE": Scope.AI_WRITE}
    schema_error_statuses = (401, 404)
    noun: str
    output: type[serializers.ModelSerializer[Any]]
    InputSerializer: type[serializers.Serializer[Any]]

    def load(self, request: Request, pk: str) -> Gig | Proposal:
        raise NotImplementedError

    def get(self, request: Request, pk: str) -> Response:
        return Response(self.output(self.load(request, pk)).data)

    def patch(self, request: Request, pk: str) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        record = record_update(
            record=self.load(request, pk), fields=dict(serializer.validated_data)
        )
        return Response(Envelope(data=self.output(record).data, message=f"{self.noun} updated"))

    def delete(self, request: Request, pk: str) -> Response:
        record_delete(record=self.load(request, pk))
        return Response(Envelope(data={"success": True}, message=f"{self.noun} deleted"))


def _record_schema(kind: str, output: Any, update: Any) -> Any:
    return extend_schema_view(
        get=extend_schema(operation_id=f"{kind}_read", tags=["ai"], responses=output),
        patch=extend_schema(
            operation_id=f"{kind}_update", tags=["ai"], request=update, responses=output
        ),
        delete=extend_schema(operation_id=f"{kind}_delete", tags=["ai"], responses={200: _DELETED}),
    )


class GigUpdateSerializer(BodySerializer):
    title = serializers.CharField(max_length=200, required=False)
    description = serializers.CharField(max_length=20_000, required=False)
    status = serializers.ChoiceField(choices=GigStatus.choices, required=False)


@_record_schema("gigs", GigSerializer, GigUpdateSerializer)
class GigDetailView(RecordDetailView):
    noun, output, InputSerializer = "Gig", GigSerializer, GigUpdateSerializer

    def load(self, request: Request, pk: str) -> Gig:
        return gig_get(user=request_user(request), pk=pk)


class ProposalFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=ProposalStatus.choices)

    class Meta:
        model = Proposal
        fields = ["status"]


class ProposalListView(generics.ListAPIView[Proposal]):
    """The user's generated proposals (default page size 10)."""

    api_key_scopes = {"GET": Scope.AI_WRITE}
    serializer_class = ProposalSerializer
    filterset_class = ProposalFilter
    page_size = 10
    sort_fields = {"created_at": "created_at", "title": "title"}
    queryset = Proposal.objects.none()

    def get_queryset(self) -> Any:
        return proposal_list(user=request_user(self.request))

    @extend_schema(operation_id="proposals_list", tags=["ai"])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class ProposalUpdateSerializer(BodySerializer):
    title = serializers.CharField(max_length=200, required=False)
    content = serializers.CharField(max_length=20_000, required=False)
    status = serializers.ChoiceField(choices=ProposalStatus.choices, required=False)


@_record_schema("proposals", ProposalSerializer, ProposalUpdateSerializer)
class ProposalDetailView(RecordDetailView):
    noun, output, InputSerializer = "Proposal", ProposalSerializer, ProposalUpdateSerializer

    def load(self, request: Request, pk: str) -> Proposal:
        return proposal_get(user=request_user(request), pk=pk)
