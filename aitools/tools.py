"""The AI tools' table: each tool's route, credit cost, contracts, title and product."""

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from aitools import contracts
from aitools.models import Gig, Proposal


@dataclass(frozen=True, slots=True)
class Product:
    """A record a tool's result is stored as (the user's gigs, proposals): its model, the
    output fields copied onto it, and its name on the history entry (the one-to-one's)."""

    model: type[Gig] | type[Proposal]
    fields: tuple[str, ...]
    related_name: str


@dataclass(frozen=True, slots=True)
class Tool:
    """One AI tool: this table drives its route, its price, its contracts, its history title
    and the record its result is stored as. Adding a tool is one row here, its contracts
    (aitools.contracts) and its offline writer (aitools.providers.offline)."""

    name: str
    route: str  # under /api/ and /api/v1/
    cost: int
    input: type[contracts.Serializer]
    output: type[contracts.Serializer]
    label: str
    title: Callable[[dict[str, Any]], str]  # the history entry's title, from the input
    product: Product | None = None


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _reviews_title(data: dict[str, Any]) -> str:
    count = len(data["reviews"])
    return f"{count} review{'s' if count != 1 else ''}"


def _social_title(data: dict[str, Any]) -> str:
    return _clip(f"{data['action']}: {data.get('prompt') or data.get('content') or ''}")


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool(
            "proposal_generate",
            "proposal/generate",
            1,
            contracts.ProposalInput,
            contracts.ProposalOutput,
            "Proposal",
            lambda data: _clip(data.get("jobTitle") or data["jobDescription"]),
            Product(Proposal, ("title", "content"), "proposal"),
        ),
        Tool(
            "gig_generate",
            "gig/generate",
            2,
            contracts.GigInput,
            contracts.GigOutput,
            "Gig",
            lambda data: _clip(data["service"]),
            Product(Gig, ("title", "description", "tags", "packages", "faq"), "gig"),
        ),
        Tool(
            "keywords_find",
            "keywords/find",
            1,
            contracts.KeywordsInput,
            contracts.KeywordsOutput,
            "Keywords",
            lambda data: _clip(data["topic"]),
        ),
        Tool(
            "pricing_optimize",
            "pricing/optimize",
            1,
            contracts.PricingInput,
            contracts.PricingOutput,
            "Pricing",
            lambda data: _clip(data["service"]),
        ),
        Tool(
            "gig_health",
            "gig/health",
            1,
            contracts.GigHealthInput,
            contracts.GigHealthOutput,
            "Gig health",
            lambda data: _clip(data["title"]),
        ),
        Tool(
            "portfolio_generate",
            "portfolio/generate",
            2,
            contracts.PortfolioInput,
            contracts.PortfolioOutput,
            "Portfolio",
            lambda data: _clip(", ".join(data["skills"])),
        ),
        Tool(
            "messages_reply",
            "messages/reply",
            1,
            contracts.MessageReplyInput,
            contracts.MessageReplyOutput,
            "Reply",
            lambda data: _clip(data["message"]),
        ),
        Tool(
            "reviews_analyze",
            "reviews/analyze",
            1,
            contracts.ReviewsInput,
            contracts.ReviewsOutput,
            "Reviews",
            _reviews_title,
        ),
        Tool(
            "seo_audit",
            "seo/audit",
            1,
            contracts.SeoAuditInput,
            contracts.SeoAuditOutput,
            "SEO audit",
            lambda data: _clip(data["title"]),
        ),
        Tool(
            "social_ai_generate",
            "social/ai/generate",
            1,
            contracts.SocialGenerateInput,
            contracts.SocialGenerateOutput,
            "Social post",
            _social_title,
        ),
    )
}


def title_of(tool: str, data: dict[str, Any]) -> str:
    """The history entry's title, from what the user asked for."""
    return TOOLS[tool].title(data)


class OutputOffContract(ValueError):
    """A provider's answer is not in the tool's documented output shape."""


def validate_output(tool: str, output: Any) -> dict[str, Any]:
    """The output in its documented shape, or raise OutputOffContract."""
    serializer = TOOLS[tool].output(data=output)
    if not serializer.is_valid():
        raise OutputOffContract(str(serializer.errors))
    return dict(serializer.data)


def input_restore(tool: str, stored: dict[str, Any]) -> dict[str, Any]:
    """A queued entry's input, as validated when it was asked for, back in its types (money as
    Decimal) from its JSON storage."""
    serializer = TOOLS[tool].input(data=stored)
    if not serializer.is_valid():
        raise OutputOffContract(str(serializer.errors))  # stored valid: never seen
    return dict(serializer.validated_data)


def output_sketch(tool: str) -> Any:
    """A JSON sketch of the tool's output shape, for a language model to fill in."""
    return contracts.sketch(TOOLS[tool].output())


def jsonable(value: Any) -> Any:
    """Validated data as plain JSON (money as numbers), for storage and for providers."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    return value
