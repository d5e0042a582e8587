"""What a service is given: typed keyword inputs (dataclasses) the API layer builds from the
request, with `UNSET` for a field the request did not send (a partial edit changes only the
fields given; `None` may be a value of its own, as a campaign taken off a post)."""

import enum
from typing import Final


class Unset(enum.Enum):
    """The type of `UNSET`: `field: str | Unset = UNSET`, narrowed by `is not UNSET`."""

    UNSET = enum.auto()

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = Unset.UNSET
