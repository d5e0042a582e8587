"""AI providers behind one interface; the configured one is chosen by `AI_PROVIDER`."""

from django.conf import settings

from aitools.providers.base import Provider, Readiness

PROVIDERS = ("offline", "openai")


def get_provider() -> Provider:
    """The provider the settings name (read at each call, so tests and reloads take effect)."""
    name = settings.AI_PROVIDER
    if name == "openai":
        from aitools.providers.openai import OpenAIProvider

        return OpenAIProvider(
            base_url=settings.AI_BASE_URL,
            api_key=settings.AI_API_KEY,
            model=settings.AI_MODEL,
            timeout=settings.AI_TIMEOUT_SECONDS,
        )
    if name == "offline":
        from aitools.providers.offline import OfflineProvider

        return OfflineProvider()
    raise ValueError(f"Unknown AI_PROVIDER {name!r}")


def provider_readiness() -> Readiness:
    """Whether the configured provider can take a request, judged without a network call."""
    if settings.AI_PROVIDER not in PROVIDERS:
        return Readiness(ready=False, reason=f"Unknown AI_PROVIDER {settings.AI_PROVIDER!r}")
    return get_provider().readiness()
