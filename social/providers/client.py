"""How an adapter calls its platform and reads the answers: the outbound client with the
platform's classification, the JSON of an answer, the platform's timestamps."""

import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from core import outbound

logger = logging.getLogger(__name__)


# A platform answering these says it did not act (overloaded, or limited: it refused before
# doing anything), whatever the call: a failure to count, never an outcome to look up. Any
# other 5xx (500, 502, 504) may come after the work was done.
NOT_ACTED = frozenset({429, 503})


class ProviderClient:
    """A provider's way out: the outbound client with the provider's classification, and the
    configured read timeout read at each call (tests and operators change it)."""

    def __init__(self, name: str, classify: outbound.Classifier | None = None) -> None:
        self.name = name
        self._client = outbound.Client(
            name, read_timeout=settings.SOCIAL_HTTP_TIMEOUT_SECONDS, classify=classify
        )

    def call(self, method: str, url: str, **kwargs: Any) -> outbound.Response:
        kwargs.setdefault("timeout", settings.SOCIAL_HTTP_TIMEOUT_SECONDS)
        try:
            return self._client.request(method, url, **kwargs)
        except outbound.TransientError as error:
            if error.status in NOT_ACTED:
                error.maybe_delivered = False
            raise

    def json(self, method: str, url: str, **kwargs: Any) -> Any:
        return json_of(self.call(method, url, **kwargs))


def classify_upload_refusals(network: str, what: str) -> outbound.Classifier:
    """The classification of an upload address that answers a plain form's status (an S3
    form, a bare PUT): a 4xx other than 408 and 429 refuses the file (`what`, as the message
    names it); the rest as the outbound client classifies it."""

    def classify_upload(response: outbound.Response) -> outbound.OutboundError | None:
        status = response.status_code
        if 400 <= status < 500 and status not in (408, 429):
            return outbound.PermanentError(
                f"{network}'s upload address refused the {what} (HTTP {status}).",
                status=status,
                excerpt=outbound.excerpt(response),
            )
        return None

    return classify_upload


def moment(value: Any) -> datetime | None:
    """A platform's timestamp (ISO 8601, Graph's "+0000" offsets, or Unix seconds or
    milliseconds) as an aware datetime; None when absent or unreadable."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = value / 1000 if value > 10**11 else value
        return datetime.fromtimestamp(seconds, tz=UTC)
    if not isinstance(value, str) or not value:
        return None
    text = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", value.replace("Z", "+00:00"))
    try:
        found = datetime.fromisoformat(text)
    except ValueError:
        return None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


def json_of(response: outbound.Response) -> Any:
    """The JSON body of a successful answer. A success we cannot read may still have done its
    work (a publish): transient, possibly delivered, so the next attempt looks it up first."""
    try:
        return response.json()
    except ValueError:
        raise outbound.TransientError(
            "The provider's answer could not be read.",
            status=response.status_code,
            maybe_delivered=True,
            excerpt=outbound.excerpt(response),
        ) from None


def body_of(response: outbound.Response) -> dict[str, Any]:
    """An error response's JSON object, or {} (error bodies are not always JSON)."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def json_of_excerpt(excerpt: str) -> dict[str, Any]:
    """An error's recorded answer (OutboundError.excerpt) as its JSON object, or {}."""
    try:
        found = json.loads(excerpt)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}


def seconds_from_now(seconds: Any) -> datetime | None:
    try:
        return timezone.now() + timedelta(seconds=int(seconds))
    except (TypeError, ValueError):
        return None


@contextmanager
def answers_checked(provider: str) -> Iterator[None]:
    """Around an adapter's connect-time calls: an answer of a shape its API does not document
    (a field missing, a list for an object, a number for a string) is the provider's failure,
    classified like an outage (transient), never an exception out of our code (a 500)."""
    try:
        yield
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        logger.warning("%s answered in an unexpected shape: %s", provider, repr(error)[:200])
        raise outbound.TransientError(
            f"{provider} answered in a shape its API does not document."
        ) from None
