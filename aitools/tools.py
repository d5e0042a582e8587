"""The ten tools: identifier, credit cost, input and output contracts."""

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from aitools import contracts


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    cost: int
    input: type[contracts.Serializer]
    output: type[contracts.Serializer]
    label: str


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        Tool("proposal_generate", 1, contracts.ProposalInput, contracts.ProposalOutput, "Proposal"),
        Tool("gig_generate", 2, contracts.GigInput, contracts.GigOutput, "Gig"),
        Tool("keywords_find", 1, contracts.KeywordsInput, contracts.KeywordsOutput, "Keywords"),
        Tool("pricing_optimize", 1, contracts.PricingInput, contracts.PricingOutput, "Pricing"),
        Tool("gig_health", 1, contracts.GigHealthInput, contracts.GigHealthOutput, "Gig health"),
        Tool(
            "portfolio_generate",
            2,
            contracts.PortfolioInput,
            contracts.PortfolioOutput,
            "Portfolio",
        ),
        Tool(
            "messages_reply", 1, contracts.MessageReplyInput, contracts.MessageReplyOutput, "Reply"
        ),
        Tool("reviews_analyze", 1, contracts.ReviewsInput, contracts.ReviewsOutput, "Reviews"),
        Tool("seo_audit", 1, contracts.SeoAuditInput, contracts.SeoAuditOutput, "SEO audit"),
        Tool(
            "social_ai_generate",
            1,
            contracts.SocialGenerateInput,
            contracts.SocialGenerateOutput,
            "Social post",
        ),
    )
}


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


def _clip(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def title_of(tool: str, data: dict[str, Any]) -> str:
    """The history entry's title, from what the user asked for."""
    match tool:
        case "proposal_generate":
            return _clip(data.get("jobTitle") or data["jobDescription"])
        case "gig_generate" | "pricing_optimize":
            return _clip(data["service"])
        case "keywords_find":
            return _clip(data["topic"])
        case "gig_health" | "seo_audit":
            return _clip(data["title"])
        case "portfolio_generate":
            return _clip(", ".join(data["skills"]))
        case "messages_reply":
            return _clip(data["message"])
        case "reviews_analyze":
            count = len(data["reviews"])
            return f"{count} review{'s' if count != 1 else ''}"
        case "social_ai_generate":
            return _clip(f"{data['action']}: {data.get('prompt') or data.get('content') or ''}")
    return TOOLS[tool].label
