"""The offline provider: useful, input-dependent answers from rules and templates, no model.

Each tool's answer is written by its own module, found through `WRITERS`; `text` holds the
helpers the tools share and `data` the word lists and tables they compose from.
"""

from collections.abc import Callable
from typing import Any

from aitools.providers.base import Generated, ProviderError, Readiness
from aitools.providers.offline import (
    gig,
    gig_health,
    keywords,
    messages,
    portfolio,
    pricing,
    proposal,
    reviews,
    seo_audit,
    social,
)
from aitools.providers.offline.text import Data, count_words

WRITERS: dict[str, Callable[[Data], Data]] = {
    "proposal_generate": proposal.write,
    "gig_generate": gig.write,
    "keywords_find": keywords.write,
    "pricing_optimize": pricing.write,
    "gig_health": gig_health.write,
    "portfolio_generate": portfolio.write,
    "messages_reply": messages.write,
    "reviews_analyze": reviews.write,
    "seo_audit": seo_audit.write,
    "social_ai_generate": social.write,
}


class OfflineProvider:
    name = "offline"

    def readiness(self) -> Readiness:
        return Readiness(ready=True)

    def generate(self, tool: str, data: dict[str, Any]) -> Generated:
        writer = WRITERS.get(tool)
        if writer is None:
            raise ProviderError(f"The offline provider has no tool {tool!r}.")
        output = writer(data)
        return Generated(output=output, tokens_used=count_words(output))
