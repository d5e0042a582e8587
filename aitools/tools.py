"""The ten tools: identifier, credit cost, input and output contracts."""

from dataclasses import dataclass
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


def validate_output(tool: str, output: Any) -> dict[str, Any]:
    """The output in its documented shape, or raise serializers.ValidationError."""
    serializer = TOOLS[tool].output(data=output)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.data)
