"""AI endpoints: the ten generators, history, and the stored gigs and proposals."""

from typing import Any

import django_filters
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


def result_of(generation: Generation) -> Any:
    """What the synchronous call answers as `data`: the stored record, or the output."""
    if generation.status != GenerationStatus.SUCCEEDED:
        return None
    if generation.tool == "gig_generate" and hasattr(generation, "gig"):
        return GigSerializer(generation.gig).data
    if generation.tool == "proposal_generate" and hasattr(generation, "proposal"):
        return ProposalSerializer(generation.proposal).data
    return generation.output


def wants_async(request: Request) -> bool:
    prefer = request.headers.get("Prefer", "")
    return any(token.strip().lower() == "respond-async" for token in prefer.split(","))


# --- The generators ----------------------------------------------------------------------------


class GenerateView(APIView):
    """Base of the ten generator views; `tool` names the one a subclass runs."""

    tool: Tool
    schema_error_statuses = (401, 402, 502)
    schema_envelope_meta = {
        "type": "object",
        "required": ["tokensUsed", "provider"],
        "properties": {
            "tokensUsed": {"type": "integer", "example": 120},
            "provider": {"type": "string", "example": "offline"},
        },
    }

    def post(self, request: Request) -> Response:
        user = request_user(request)
        serializer = self.tool.input(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        if wants_async(request):
            generation = generation_enqueue(user=user, tool=self.tool.name, data=data)
            location = api_url(request, "history-detail", pk=generation.pk)
            return Response(
                Envelope(
                    data=HistorySerializer(generation).data,
                    message="Generation started; the result will be on the history entry.",
                ),
                status=status.HTTP_202_ACCEPTED,
                headers={"Location": location, "Preference-Applied": "respond-async"},
            )
        generation = generation_run(user=user, tool=self.tool.name, data=data)
        return Response(
            Envelope(
                data=result_of(generation),
                meta={"tokensUsed": generation.tokens_used, "provider": generation.provider},
            )
        )


def _output_schema(tool: Tool) -> Any:
    if tool.name == "gig_generate":
        return GigSerializer
    if tool.name == "proposal_generate":
        return ProposalSerializer
    return tool.output


def generate_view(tool_name: str) -> type[GenerateView]:
    """A generator view with its own OpenAPI operation (request, answer, errors)."""
    tool = TOOLS[tool_name]

    def post(self: GenerateView, request: Request) -> Response:
        return GenerateView.post(self, request)

    documented = extend_schema(
        operation_id=tool_name,
        tags=["ai"],
        summary=f"{tool.label} ({tool.cost} credit{'s' if tool.cost > 1 else ''})",
        description=(
            f"Costs {tool.cost} credit(s), taken before generation and refunded if the "
            "provider fails (502). With `Prefer: respond-async` the call answers 202 with the "
            "history entry; the result lands on it and an `ai_complete` notification follows."
        ),
        request=tool.input,
        responses={200: _output_schema(tool), 202: HistorySerializer},
        parameters=[
            OpenApiParameter(
                "Prefer", str, OpenApiParameter.HEADER, description="`respond-async` to queue."
            )
        ],
    )(post)
    name = f"{tool.label.title().replace(' ', '')}GenerateView"
    return type(name, (GenerateView,), {"tool": tool, "post": documented, "__module__": __name__})


# --- History, gigs, proposals ------------------------------------------------------------------


class HistoryFilter(django_filters.FilterSet):
    tool = django_filters.ChoiceFilter(choices=[(name, name) for name in TOOLS])

    class Meta:
        model = Generation
        fields = ["tool"]


class HistoryListView(generics.ListAPIView[Generation]):
    """The user's AI calls, newest first (default page size 20)."""

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

    schema_error_statuses = (401, 404)
    noun: str
    output: type[serializers.ModelSerializer[Any]]
    InputSerializer: type[serializers.Serializer[Any]]

    def load(self, request: Request, pk: str) -> Gig | Proposal:
        raise NotImplementedError

    def get(self, request: Request, pk: str) -> Response:
        return Response(self.output(self.load(request, pk)).data)

    def patch(self, request: Request, pk: str) -> Response:
        record = self.load(request, pk)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        record = record_update(record=record, fields=dict(serializer.validated_data))
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
        delete=extend_schema(operation_id=f"{kind}_delete", tags=["ai"], responses=_DELETED),
    )


class GigUpdateSerializer(serializers.Serializer[Any]):
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


class ProposalUpdateSerializer(serializers.Serializer[Any]):
    title = serializers.CharField(max_length=200, required=False)
    content = serializers.CharField(max_length=20_000, required=False)
    status = serializers.ChoiceField(choices=ProposalStatus.choices, required=False)


@_record_schema("proposals", ProposalSerializer, ProposalUpdateSerializer)
class ProposalDetailView(RecordDetailView):
    noun, output, InputSerializer = "Proposal", ProposalSerializer, ProposalUpdateSerializer

    def load(self, request: Request, pk: str) -> Proposal:
        return proposal_get(user=request_user(request), pk=pk)
