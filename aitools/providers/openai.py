"""Any OpenAI-compatible chat-completions server, asked for JSON in the tool's output shape."""

import json
import logging
from typing import Any

from aitools.providers.base import Generated, ProviderError, Readiness
from aitools.tools import jsonable, output_sketch, validate_output
from core import outbound

logger = logging.getLogger(__name__)


class OpenAIProvider:
    name = "openai"

    def __init__(self, *, base_url: str, api_key: str, model: str, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.model = model
        # A completion costs tokens: never re-sent by the outbound layer (POST, not idempotent).
        self.client = outbound.Client("ai-provider", read_timeout=timeout)

    def readiness(self) -> Readiness:
        missing = [
            name
            for name, value in (("AI_BASE_URL", self.base_url), ("AI_MODEL", self.model))
            if not value
        ]
        if missing:
            return Readiness(
                ready=False, reason=f"AI provider not configured: {', '.join(missing)}"
            )
        return Readiness(ready=True)

    def _messages(self, tool: str, data: dict[str, Any]) -> list[dict[str, str]]:
        shape = json.dumps(output_sketch(tool), indent=1)
        return [
            {
                "role": "system",
                "content": (
                    "You write content for freelancers. Answer with one JSON object only, "
                    f"no prose, in exactly this shape:\n{shape}"
                ),
            },
            {
                "role": "user",
                "content": f"Tool: {tool}\nInput:\n"
                + json.dumps(jsonable(data), ensure_ascii=False),
            },
        ]

    def _complete(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        try:
            response = self.client.request(
                "POST",
                f"{self.base_url}/chat/completions",
                json={
                    "model": self.model,
                    "messages": messages,
                    "response_format": {"type": "json_object"},
                    "temperature": 0.7,
                },
                headers=headers,
            )
        except outbound.TransientError as exc:
            if exc.status is None:
                raise ProviderError(
                    "The AI provider did not answer in time."
                    if exc.timed_out
                    else "The AI provider could not be reached."
                ) from None
            raise ProviderError(f"The AI provider failed (HTTP {exc.status}).") from None
        except outbound.OutboundError as exc:
            status = f"HTTP {exc.status}" if exc.status else type(exc).__name__
            raise ProviderError(f"The AI provider failed ({status}).") from None
        try:
            body: dict[str, Any] = response.json()
            return body
        except ValueError:
            raise ProviderError("The AI provider answered something that is not JSON.") from None

    def generate(self, tool: str, data: dict[str, Any]) -> Generated:
        """One retry when the answer is not JSON in the tool's shape; errors become
        ProviderError, whose message is safe to show."""
        messages = self._messages(tool, data)
        tokens = 0
        for attempt in (1, 2):
            body = self._complete(messages)
            usage = body.get("usage")
            if isinstance(usage, dict):
                tokens += int(usage.get("total_tokens") or 0)
            content = ""
            try:
                content = body["choices"][0]["message"]["content"]
                output = validate_output(tool, json.loads(content))
            except (
                KeyError,
                IndexError,
                TypeError,
                ValueError,
            ) as exc:
                logger.info("AI provider answer rejected (attempt %s): %s", attempt, exc)
                if attempt == 2:
                    raise ProviderError("The AI provider returned an invalid answer.") from None
                messages = [
                    *messages,
                    {"role": "assistant", "content": str(content)},
                    {
                        "role": "user",
                        "content": "That was not a JSON object in the required shape. "
                        "Answer again with the JSON object only.",
                    },
                ]
                continue
            return Generated(output=output, tokens_used=tokens)
        raise ProviderError("The AI provider returned an invalid answer.")  # pragma: no cover
