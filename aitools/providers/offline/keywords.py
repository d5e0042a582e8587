"""keywords_find: search phrases around a topic, ranked by relevance, with their competition."""

from aitools.providers.offline import data as d
from aitools.providers.offline.text import Data, tokens

MAX_KEYWORDS = 12


def write(data: Data) -> Data:
    topic = " ".join(tokens(data["topic"])[:6]) or data["topic"].strip().lower()
    platform = " ".join(tokens(data.get("platform") or ""))
    patterns = list(d.KEYWORD_PATTERNS)
    if platform:
        patterns += d.PLATFORM_KEYWORD_PATTERNS
    found: dict[str, int] = {}
    for pattern, distance in patterns:
        phrase = _without_repeats(pattern.format(topic=topic, platform=platform))
        found.setdefault(phrase, distance)
    keywords: list[Data] = [
        {
            "keyword": phrase,
            "relevance": _relevance(phrase, distance, topic),
            "competition": _competition(phrase),
        }
        for phrase, distance in found.items()
    ]
    keywords.sort(key=lambda keyword: -keyword["relevance"])
    return {"keywords": keywords[:MAX_KEYWORDS]}


def _without_repeats(phrase: str) -> str:
    """'seo services services' becomes 'seo services'."""
    words: list[str] = []
    for word in phrase.split():
        if not words or words[-1] != word:
            words.append(word)
    return " ".join(words)


def _relevance(phrase: str, distance: int, topic: str) -> float:
    # Each modifier step away from the bare topic, and each added word, dilutes the intent.
    extra_words = max(len(phrase.split()) - len(topic.split()), 0)
    return round(min(max(1.0 - 0.1 * distance - 0.03 * extra_words, 0.05), 1.0), 2)


def _competition(phrase: str) -> str:
    # Head terms draw every seller; long-tail phrases are where a newcomer can rank.
    words = len(phrase.split())
    if words <= 2:
        return "high"
    if words == 3:
        return "medium"
    return "low"
