"""AI providers behind one interface; the configured one is chosen by `AI_PROVIDER`."""

from collections.abc import Callable

from django.conf import settings

from aitools.providers.base import Provider, Readiness
from aitools.providers.offline import OfflineProvider
from aitools.providers.openai import OpenAIProvider


def _openai() -> Provider:
    return OpenAIProvider(
        base_url=settings.AI_BASE_URL,
        api_key=settings.AI_API_KEY,
        model=settings.AI_MODEL,
        timeout=settings.AI_TIMEOUT_SECONDS,
    )


FACTORIES: dict[str, Callable[[], Provider]] = {
    "offline": OfflineProvider,
    "openai": _openai,
}
PROVIDERS = tuple(FACTORIES)


def get_provider() -> Provider:
    """The provider the settings name (read at each call, so tests and reloads take effect)."""
    factory = FACTORIES.get(settings.AI_PROVIDER)
    if factory is None:
        raise ValueError(f"Unknown AI_PROVIDER {settings.AI_PROVIDER!r}")
    return factory()


def provider_readiness() -> Readiness:
    """Whether the configured provider can take a request, judged without a network call."""
    if settings.AI_PROVIDER not in PROVIDERS:
        return Readiness(ready=False, reason=f"Unknown AI_PROVIDER {settings.AI_PROVIDER!r}")
    return get_provider().readiness()
