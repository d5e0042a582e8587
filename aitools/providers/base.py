"""The provider interface: one call that turns a tool's validated input into its output."""

from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class Generated:
    output: dict[str, Any]  # in the tool's output shape (aitools.contracts)
    tokens_used: int  # prompt + completion tokens, or words produced by the offline provider


@dataclass(frozen=True, slots=True)
class Readiness:
    ready: bool
    reason: str = ""


class ProviderError(Exception):
    """The provider could not produce a valid answer; the message is safe to show a user."""


class Provider(Protocol):
    name: str

    def generate(self, tool: str, data: dict[str, Any]) -> Generated: ...

    def readiness(self) -> Readiness: ...
