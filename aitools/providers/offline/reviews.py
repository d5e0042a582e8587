"""reviews_analyze: the reviews' average, sentiment, praised and criticised aspects, a summary."""

import re
from collections import Counter
from statistics import mean

from aitools.providers.offline import data as d
from aitools.providers.offline.text import Data, capitalize, join, tokens

_CLAUSE_BREAK = re.compile(r"[.!?;\n]+|,\s*|\bbut\b|\bhowever\b", re.IGNORECASE)


def _polarity(words: list[str]) -> int:
    """Positive minus negative lexicon words; a negation just before a word flips it."""
    score = 0
    for i, word in enumerate(words):
        sign = 1 if word in d.POSITIVE_WORDS else -1 if word in d.NEGATIVE_WORDS else 0
        if sign and d.NEGATIONS & set(words[max(i - 2, 0) : i]):
            sign = -sign
        score += sign
    return score


def _review_score(review: Data) -> float:
    """-1..1: the rating, nudged by the words when they say something."""
    by_rating = (review["rating"] - 3) / 2
    words = tokens(review.get("text") or "")
    hits = sum(1 for w in words if w in d.POSITIVE_WORDS or w in d.NEGATIVE_WORDS)
    if not hits:
        return by_rating
    return 0.6 * by_rating + 0.4 * max(min(_polarity(words) / hits, 1.0), -1.0)


def _label(score: float) -> str:
    if score > 0.2:
        return "positive"
    if score < -0.2:
        return "negative"
    return "neutral"


def _aspects(words: list[str]) -> set[str]:
    return {
        aspect
        for aspect, prefixes in d.REVIEW_ASPECTS.items()
        if any(word.startswith(prefixes) for word in words)
    }


def _aspect_mentions(reviews: list[Data]) -> tuple[Counter[str], Counter[str]]:
    """Aspects praised and criticised, clause by clause; a neutral clause sides with the rating."""
    praised: Counter[str] = Counter()
    criticised: Counter[str] = Counter()
    for review in reviews:
        fallback = 1 if review["rating"] >= 4 else -1 if review["rating"] <= 2 else 0
        for clause in _CLAUSE_BREAK.split(review.get("text") or ""):
            words = tokens(clause)
            polarity = _polarity(words) or fallback
            if polarity:
                target = praised if polarity > 0 else criticised
                target.update(_aspects(words))
    return praised, criticised


def write(data: Data) -> Data:
    reviews: list[Data] = data["reviews"]
    average = round(mean(review["rating"] for review in reviews), 2)
    labels = Counter(_label(_review_score(review)) for review in reviews)
    sentiment = _label(mean(_review_score(review) for review in reviews))
    praised, criticised = _aspect_mentions(reviews)
    strengths = [_aspect_line(aspect, n) for aspect, n in praised.most_common(4)]
    improvements = [_aspect_line(aspect, n) for aspect, n in criticised.most_common(4)]
    return {
        "averageRating": average,
        "sentiment": sentiment,
        "strengths": strengths,
        "improvements": improvements,
        "summary": _reviews_summary(len(reviews), average, labels, praised, criticised),
    }


def _aspect_line(aspect: str, mentions: int) -> str:
    return f"{capitalize(aspect)} ({mentions} mention{'s' if mentions != 1 else ''})"


def _reviews_summary(
    total: int,
    average: float,
    labels: Counter[str],
    praised: Counter[str],
    criticised: Counter[str],
) -> str:
    counts = ", ".join(f"{labels[name]} {name}" for name in ("positive", "neutral", "negative"))
    parts = [
        f"{total} review{'s' if total != 1 else ''} average {average:.2f} out of 5 ({counts})."
    ]
    if praised:
        parts.append(f"Clients most often praise {join([a for a, _ in praised.most_common(2)])}.")
    if criticised:
        parts.append(f"The main concern is {criticised.most_common(1)[0][0]}; address it first.")
    else:
        parts.append("No recurring complaints stand out.")
    return " ".join(parts)
