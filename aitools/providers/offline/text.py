"""The text helpers the offline tools share: words, stems, sentences, key phrases, clipping,
joining, tone and money."""

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from aitools.providers.offline import data as d

Data = dict[str, Any]

CENT = Decimal("0.01")


def count_words(value: Any) -> int:
    """Words in every string of an output, however deeply nested: the offline 'tokens'."""
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, dict):
        return sum(count_words(item) for item in value.values())
    if isinstance(value, list | tuple):
        return sum(count_words(item) for item in value)
    return 0


_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9+#'\u2019]*(?:-[A-Za-z0-9]+)*")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\s*\n+\s*")
_PHRASE_BREAK = re.compile(r"[.,;:!?()\[\]{}\n\"\u201c\u201d/|\u2022]+")
_BULLET_CHARS = " \t-*\u2022"
MENTION = re.compile(
    r"(?<![\w@])@[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*(?:@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)?"
)
HASHTAG = re.compile(r"(?<![\w#])#([A-Za-z][A-Za-z0-9_]*)")


def tokens(text: str) -> list[str]:
    return [t.lower().replace("\u2019", "'").rstrip("'") for t in _TOKEN.findall(text)]


def is_content(word: str) -> bool:
    return len(word) > 2 and word not in d.STOPWORDS and not word.isdigit()


def _is_topical(word: str) -> bool:
    return is_content(word) and word not in d.GENERIC_WORDS


def stem(word: str) -> str:
    # Just enough folding that "designs", "designed" and "designing" match "design".
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def stems(text: str) -> set[str]:
    return {stem(word) for word in tokens(text)}


def content_words(text: str) -> list[str]:
    """Content words in order of first appearance, without repeats."""
    return list(dict.fromkeys(word for word in tokens(text) if is_content(word)))


def key_terms(text: str, limit: int) -> list[str]:
    counts = Counter(word for word in tokens(text) if _is_topical(word))
    return [word for word, _ in counts.most_common(limit)]


def split_sentences(text: str) -> list[str]:
    pieces = (piece.strip(_BULLET_CHARS) for piece in _SENTENCE_BREAK.split(text))
    return [piece for piece in pieces if piece]


def first_sentence(text: str) -> str:
    return next(iter(split_sentences(text)), text.strip())


def _proper_forms(text: str) -> dict[str, str]:
    """Words the text always capitalises away from a sentence start (React, SaaS, Shopify)."""
    forms: dict[str, str] = {}
    seen_lower: set[str] = set()
    for sentence in split_sentences(text):
        for position, token in enumerate(_TOKEN.findall(sentence)):
            lower = token.lower()
            if token == lower:
                seen_lower.add(lower)
            elif position > 0 or token[1:] != token[1:].lower():
                forms[lower] = token
    return {word: form for word, form in forms.items() if word not in seen_lower}


def key_phrases(text: str, limit: int) -> list[str]:
    """Runs of up to three content words ("react dashboard"), best first: what a brief is about.

    A phrase scores the summed frequency of its words, so a repeated theme outranks a word
    mentioned once, and a specific multi-word phrase outranks its parts.
    """
    runs: list[list[str]] = []
    for chunk in _PHRASE_BREAK.split(text):
        run: list[str] = []
        for word in tokens(chunk):
            if _is_topical(word):
                run.append(word)
                continue
            if run:
                runs.append(run)
            run = []
        if run:
            runs.append(run)
    frequency = Counter(word for run in runs for word in run)
    scores: dict[str, int] = {}
    for run in runs:
        for start in range(0, len(run), 3):
            piece = run[start : start + 3]
            scores.setdefault(" ".join(piece), sum(frequency[word] for word in piece))
    ranked: list[str] = []
    for phrase in sorted(scores, key=lambda phrase: -scores[phrase]):
        # "dashboard" adds nothing once "analytics dashboard" is in.
        if not any(set(phrase.split()) <= set(better.split()) for better in ranked):
            ranked.append(phrase)
        if len(ranked) == limit:
            break
    forms = _proper_forms(text)
    return [" ".join(forms.get(word, word) for word in phrase.split()) for phrase in ranked]


def clip_words(text: str, limit: int) -> str:
    words = text.split()
    if len(words) <= limit:
        return " ".join(words)
    return " ".join(words[:limit]).rstrip(",;:-") + "..."


def clip_chars(text: str, limit: int) -> str:
    """The text cut at a word boundary so that it fits in `limit` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit + 1].rsplit(" ", 1)[0]
    if len(cut) > limit:  # one word longer than the limit
        cut = text[:limit]
    return cut.rstrip(" ,;:-")


def join(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def distinct(items: Iterable[str]) -> list[str]:
    """The items without case-insensitive repeats, first spelling kept."""
    seen: set[str] = set()
    kept: list[str] = []
    for item in items:
        if item.lower() not in seen:
            seen.add(item.lower())
            kept.append(item)
    return kept


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def tone_of(value: str | None) -> str:
    for word in tokens(value or ""):
        if word in d.TONE_ALIASES:
            return d.TONE_ALIASES[word]
    return d.DEFAULT_TONE


def platform_key(value: str | None) -> str:
    """'Dev.to', 'devto' and ' DevTo ' all name the platform the tables call 'devto'."""
    return "".join(tokens(value or ""))


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


_SECOND_PERSON_PATTERN = re.compile(
    r"\b(" + "|".join(sorted(d.SECOND_PERSON, key=len, reverse=True)) + r")\b", re.IGNORECASE
)


def as_second_person(text: str) -> str:
    """A client's 'we need X' retold to them as 'you need X'."""

    def swap(match: re.Match[str]) -> str:
        replacement = d.SECOND_PERSON[match.group(0).lower()]
        return capitalize(replacement) if match.start() == 0 else replacement

    return _SECOND_PERSON_PATTERN.sub(swap, text.replace("\u2019", "'"))


# Shared by gig_generate (the gig's title) and gig_health (the title it suggests).
def service_action(service: str) -> str:
    """The service as what follows 'I will': 'logo design' becomes 'provide logo design'."""
    text = service_phrase(service)
    first = tokens(text)[:1]
    if first and first[0] in d.SERVICE_VERBS:
        return text
    return f"provide professional {text}"


def service_phrase(service: str) -> str:
    """The service without a leading 'I will', lower-cased unless it starts with a name."""
    text = re.sub(r"^\s*i\s+will\s+", "", service, flags=re.IGNORECASE).strip(" .!")
    first_word = text.split()[0] if text.split() else ""
    if first_word[1:] == first_word[1:].lower():  # "Logo", not "WordPress" or "SEO"
        text = text[:1].lower() + text[1:]
    return text


# ALL-CAPS words: gig_health, seo_audit and social_ai_generate each flag them.
def shouting_words(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text) if t.isupper() and sum(c.isalpha() for c in t) >= 5]
