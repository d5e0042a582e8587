"""gig_health: a gig listing scored by weighted checks, each failed one with its fix."""

from dataclasses import dataclass
from decimal import Decimal

from aitools.providers.offline.text import (
    Data,
    content_words,
    join,
    service_action,
    shouting_words,
    stem,
    stems,
)


@dataclass(frozen=True, slots=True)
class _Check:
    name: str
    weight: int  # the weights of all checks add up to 100
    passed: bool
    fix: str


def write(data: Data) -> Data:
    title: str = data["title"].strip()
    description: str = data["description"]
    checks = [
        _title_length_check(title),
        _Check(
            "Title starts with 'I will'",
            10,
            title.lower().startswith("i will "),
            f"Start the title with 'I will', e.g. 'I will {service_action(title.lower())}'.",
        ),
        _description_length_check(description),
        _tag_count_check(data["tags"]),
        _title_keywords_check(title, description),
        _price_check(data.get("price")),
        _shouting_check(f"{title}\n{description}"),
        _Check(
            "Readable structure",
            5,
            "\n" in description.strip(),
            "Break the description into short paragraphs or a bullet list of what is included.",
        ),
    ]
    return {
        "score": sum(check.weight for check in checks if check.passed),
        "checks": [
            {"name": c.name, "passed": c.passed, "suggestion": "" if c.passed else c.fix}
            for c in checks
        ],
    }


def _title_length_check(title: str) -> _Check:
    n = len(title)
    action = "lengthen" if n < 40 else "shorten"
    return _Check(
        "Title length",
        15,
        40 <= n <= 80,
        f"The title has {n} characters; {action} it to 40-80 by saying what you deliver and "
        "for whom.",
    )


def _description_length_check(description: str) -> _Check:
    n = len(description.split())
    return _Check(
        "Description length",
        20,
        n >= 120,
        f"The description has {n} words; write at least 120 covering what is included, your "
        "process and what you need from the buyer.",
    )


def _tag_count_check(tags: list[str]) -> _Check:
    n = len(tags)
    return _Check(
        "Tag count",
        15,
        3 <= n <= 5,
        f"Use 3 to 5 tags (you have {n}), each a phrase a buyer would search for.",
    )


def _title_keywords_check(title: str, description: str) -> _Check:
    keywords = [w for w in content_words(title) if w != "will"]
    described = stems(description)
    missing = [w for w in keywords if stem(w) not in described]
    if not keywords:
        return _Check(
            "Title keywords in description", 15, False, "Put your main keyword in the title."
        )
    return _Check(
        "Title keywords in description",
        15,
        len(missing) * 2 <= len(keywords),
        f"Mention {join(missing[:4])} in the description so search matches the title.",
    )


def _price_check(price: Decimal | None) -> _Check:
    fix = (
        "Add a starting price."
        if price is None
        else f"Raise the starting price above 5 (now {price})."
    )
    return _Check("Price set", 10, price is not None and price > 5, fix)


def _shouting_check(text: str) -> _Check:
    loud = shouting_words(text)
    target = f"'{loud[0]}'" if loud else "the text"
    return _Check(
        "No shouting",
        10,
        not loud and "!!" not in text,
        f"Write {target} in normal case and drop repeated exclamation marks: they read as spam.",
    )
