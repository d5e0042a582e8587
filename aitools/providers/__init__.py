"""AI providers behind one interface; the configured one is chosen by `AI_PROVIDER`."""

from dataclasses import dataclass

from django.conf import settings

PROVIDERS = ("offline", "openai")


@dataclass(frozen=True, slots=True)
class Readiness:
    ready: bool
    reason: str = ""


def provider_readiness() -> Readiness:
    """Whether the configured provider can take a request, judged without a network call.

    `offline` needs nothing. `openai` needs its base URL and model (the key may be empty for
    a local server that wants none).
    """
    name = settings.AI_PROVIDER
    if name == "offline":
        return Readiness(ready=True)
    if name == "openai":
        missing = [var for var in ("AI_BASE_URL", "AI_MODEL") if not getattr(settings, var)]
        if missing:
            return Readiness(
                ready=False, reason=f"AI provider not configured: {', '.join(missing)}"
            )
        return Readiness(ready=True)
    return Readiness(ready=False, reason=f"Unknown AI_PROVIDER {name!r}")
