"""seo_audit: a listing checked against search practice and the platform's limits, scored."""

from collections import Counter
from dataclasses import dataclass
from statistics import mean

from aitools.providers.offline import data as d
from aitools.providers.offline.text import (
    Data,
    content_words,
    is_content,
    join,
    platform_key,
    shouting_words,
    split_sentences,
    stem,
    stems,
    tokens,
)


@dataclass(frozen=True, slots=True)
class _Issue:
    severity: str
    field: str
    message: str
    fix: str


def write(data: Data) -> Data:
    title: str = data["title"].strip()
    description: str = data["description"]
    tags = [" ".join(tag.lower().split()) for tag in data["tags"] if tag.strip()]
    limits = d.PLATFORM_LISTING_LIMITS.get(platform_key(data.get("platform")), {})
    issues = [
        *_seo_title_issues(title, limits),
        *_seo_description_issues(description, limits),
        *_seo_keyword_issues(title, description),
        *_seo_tag_issues(tags, description, limits),
        *_seo_stuffing_issues(description),
        *_seo_readability_issues(description),
    ]
    score = max(0, 100 - sum(d.SEO_PENALTY[issue.severity] for issue in issues))
    suggestions = list(dict.fromkeys(issue.fix for issue in issues)) or [
        "Everything checks out; test a second title variant and keep the one that gets more clicks."
    ]
    return {
        "score": score,
        "issues": [
            {"severity": i.severity, "field": i.field, "message": i.message} for i in issues
        ],
        "suggestions": suggestions,
    }


def _seo_title_issues(title: str, limits: dict[str, int]) -> list[_Issue]:
    low, high = d.TITLE_IDEAL
    hard_max = limits.get("title_max")
    n = len(title)
    issues: list[_Issue] = []
    if n < low:
        issues.append(
            _Issue(
                "high" if n < 20 else "medium",
                "title",
                f"The title is too short ({n} characters; aim for {low}-{hard_max or high}).",
                "Lengthen the title with your main keyword and who the service is for.",
            )
        )
    elif hard_max and n > hard_max:
        issues.append(
            _Issue(
                "high",
                "title",
                f"The title is {n} characters; the platform allows {hard_max}.",
                f"Cut the title to at most {hard_max} characters.",
            )
        )
    elif n > max(high, hard_max or 0):
        issues.append(
            _Issue(
                "medium",
                "title",
                f"The title is {n} characters and will be cut off in search results.",
                f"Keep the title under {high} characters, main keyword first.",
            )
        )
    if shouting_words(title):
        issues.append(
            _Issue(
                "low", "title", "The title uses ALL-CAPS words.", "Write the title in normal case."
            )
        )
    return issues


def _seo_description_issues(description: str, limits: dict[str, int]) -> list[_Issue]:
    n = len(description.split())
    issues: list[_Issue] = []
    if n < 120:
        issues.append(
            _Issue(
                "high" if n < 50 else "medium",
                "description",
                f"The description is short ({n} words); search favours at least 120.",
                "Expand the description: what is included, your process, and why you.",
            )
        )
    hard_max = limits.get("description_max")
    if hard_max and len(description) > hard_max:
        issues.append(
            _Issue(
                "high",
                "description",
                f"The description is {len(description)} characters; the limit is {hard_max}.",
                f"Trim the description to {hard_max} characters.",
            )
        )
    return issues


def _seo_keyword_issues(title: str, description: str) -> list[_Issue]:
    keywords = [w for w in content_words(title) if w != "will"]
    opening = stems(description[:150])
    if not keywords or any(stem(w) in opening for w in keywords):
        return []
    main = join([f"'{w}'" for w in keywords[:2]])
    return [
        _Issue(
            "medium",
            "description",
            f"The title keyword {main} is missing from the description's first 150 characters.",
            f"Use {main} in the first sentence of the description.",
        )
    ]


def _seo_tag_issues(tags: list[str], description: str, limits: dict[str, int]) -> list[_Issue]:
    most = limits.get("tags_max", 5)
    issues: list[_Issue] = []
    if len(tags) < 3:
        issues.append(
            _Issue(
                "medium",
                "tags",
                f"Only {len(tags)} tag(s); use 3 to {most}.",
                "Add tags for the phrases buyers search for.",
            )
        )
    elif len(tags) > most:
        issues.append(
            _Issue(
                "high" if "tags_max" in limits else "low",
                "tags",
                f"{len(tags)} tags; use at most {most}.",
                f"Keep the {most} most relevant tags.",
            )
        )
    described = stems(description)
    missing = [tag for tag in tags if not stems(tag) <= described]
    if missing:
        issues.append(
            _Issue(
                "low",
                "tags",
                f"Tags not used in the description: {', '.join(missing[:5])}.",
                f"Mention {join(missing[:3])} in the description, or replace those tags.",
            )
        )
    return issues


def _seo_stuffing_issues(description: str) -> list[_Issue]:
    words = tokens(description)
    counts = Counter(w for w in words if is_content(w))
    if not counts:
        return []
    word, n = counts.most_common(1)[0]
    density = n / len(words)
    if n < 4 or density <= 0.05:  # a handful of repeats in a short text is not stuffing
        return []
    return [
        _Issue(
            "medium",
            "description",
            f"'{word}' makes up {density:.0%} of the description (keyword stuffing).",
            f"Use '{word}' less often, with synonyms; keep any one word under 5%.",
        )
    ]


def _seo_readability_issues(description: str) -> list[_Issue]:
    lengths = [len(s.split()) for s in split_sentences(description)]
    if not lengths or (mean(lengths) <= 25 and max(lengths) <= 40):
        return []
    return [
        _Issue(
            "low",
            "description",
            f"Sentences are long (average {mean(lengths):.0f} words, longest {max(lengths)}).",
            "Split long sentences; aim for 15-20 words each.",
        )
    ]
