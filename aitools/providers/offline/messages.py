"""messages_reply: a reply that answers what a client's message says and asks, with two others."""

import re
from dataclasses import dataclass

from aitools.providers.offline import data as d
from aitools.providers.offline.text import (
    Data,
    capitalize,
    clip_words,
    key_phrases,
    split_sentences,
    tokens,
    tone_of,
)


@dataclass(frozen=True, slots=True)
class _Incoming:
    """What a client's message says and asks for, as the reply needs to know it."""

    topic: str
    sender: str
    questions: list[str]
    urgent: bool
    thanks: bool
    price: str | None  # the amount they named, "" for a price question without one
    day: str | None  # the day they proposed, "" for a scheduling question without one
    deadline: str | None  # a day they need it by (not a meeting), quoted as they wrote it
    complaint: str | None  # the sentence that says what went wrong, as they wrote it
    praise: bool
    stars: str | None  # "5" for "I left you 5 stars"
    scope_change: str | None  # what they want added, in the reply's words ("your logo")


_AMOUNT = re.compile(
    r"[$\u20ac\u00a3]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp)\b",
    re.IGNORECASE,
)
_STARS = re.compile(r"\b([1-5])(?:\s|-)?stars?\b", re.IGNORECASE)
_SCOPE = re.compile(
    r"\b(?:(?:could|can|would) you also|also (?:need|want|like)|(?:please )?(?:also )?add|"
    r"include|one more thing:?)\s+(?P<item>[^.?!;\n]+)",
    re.IGNORECASE,
)


def _swap_pronouns(text: str) -> str:
    return " ".join(d.PRONOUN_SWAPS.get(word.lower(), word) for word in text.split())


def _complaint(message: str, words: set[str]) -> str | None:
    lowered = message.lower()
    if not (words & d.COMPLAINT_WORDS or any(p in lowered for p in d.COMPLAINT_PHRASES)):
        return None
    for sentence in split_sentences(message):
        sentence_words = set(tokens(sentence))
        if sentence_words & d.COMPLAINT_WORDS or any(
            p in sentence.lower() for p in d.COMPLAINT_PHRASES
        ):
            return clip_words(sentence.rstrip(".!"), 25)
    return None


def _read_message(message: str) -> _Incoming:
    words = set(tokens(message))
    amount = _AMOUNT.search(message)
    days = [day for day in d.WEEKDAYS if day in words]
    stars = _STARS.search(message)
    complaint = _complaint(message, words)
    praise = not complaint and bool(words & d.PRAISE_WORDS or stars)
    scope = _SCOPE.search(message)
    meeting = bool(words & d.SCHEDULE_WORDS)
    return _Incoming(
        # Praise and complaints are answered by what they say, not by a guessed topic word.
        topic=(key_phrases(message, 1) or ["your project"])[0],
        sender=_sender_name(message),
        questions=[s for s in split_sentences(message) if s.endswith("?")][:2],
        urgent=bool(words & d.URGENCY_WORDS),
        thanks=bool(words & d.THANKS_WORDS),
        price=amount.group(0) if amount else ("" if words & d.PRICE_WORDS else None),
        day=(days[0] if days else "") if meeting else None,
        deadline=days[0] if days and not meeting else None,
        complaint=complaint,
        praise=praise,
        stars=stars.group(1) if stars else None,
        scope_change=(
            clip_words(
                _swap_pronouns(
                    re.sub(r"^(?:add|include)\s+", "", scope["item"].strip(), flags=re.IGNORECASE)
                ),
                12,
            )
            if scope
            else None
        ),
    )


def _sender_name(message: str) -> str:
    """A sign-off name on the last line ('Thanks,\\nAnna' or '- Anna'), else ''."""
    lines = [line.strip(" -\u2014,") for line in message.strip().splitlines() if line.strip()]
    if len(lines) < 2:
        return ""
    last = lines[-1].split()
    if 1 <= len(last) <= 2 and all(w.isalpha() and w[0].isupper() for w in last):
        return last[0] if last[0].lower() not in d.THANKS_WORDS else ""
    return ""


def _answer(question: str, incoming: _Incoming) -> str | None:
    """'Can you deliver my logo by Friday?' becomes 'Yes, I can deliver your logo by Friday.';
    other questions get the answer their kind calls for (None when another sentence of the
    reply already answers it: a price, a meeting day)."""
    text = question.rstrip("?").strip()
    lowered = text.lower()
    for opener, answer in d.YES_NO_OPENERS.items():
        if lowered.startswith(opener + " "):
            rest = _swap_pronouns(text[len(opener) :])
            return f"{answer} {clip_words(rest, 20)}."
    words = set(tokens(lowered))
    if words & d.PRICE_WORDS or lowered.startswith("how much"):
        return None  # the price sentence answers it
    if words & d.SCHEDULE_WORDS:
        return None  # the scheduling sentence answers it
    if lowered.startswith(("when", "how long", "how soon")):
        return (
            "I can have the first version ready within three working days of your go-ahead, "
            "and I will confirm the exact date as soon as the scope is settled."
        )
    if lowered.startswith(("why", "what happened")):
        return (
            "Here is what happened: I will send you a short written explanation today, with "
            "what I have changed so it does not happen again."
        )
    return (
        f"My suggestion for the {incoming.topic}: start from what matters most to your users, "
        "then refine; I will send you a short written outline today so you can compare options."
    )


def _reply_sentences(incoming: _Incoming, tone: dict[str, str], context: str) -> list[str]:
    if incoming.complaint:
        sentences = [
            f'I am sorry about this: "{incoming.complaint}." That is not the standard I hold '
            "myself to.",
            "I will fix it and send you a corrected version within 24 hours, at no extra cost.",
        ]
    elif incoming.praise:
        review = f"the {incoming.stars}-star review" if incoming.stars else "the kind words"
        sentences = [
            f"Thank you so much for {review}; it means a lot and helps my work get found.",
            "If you have another project in mind, I would be glad to work with you again.",
        ]
    else:
        sentences = [tone["thanks" if incoming.thanks else "opening"].format(topic=incoming.topic)]
    # A question that asks for the added work is answered by the scope sentence below.
    questions = [q for q in incoming.questions if not (incoming.scope_change and _SCOPE.search(q))]
    sentences += [a for q in questions if (a := _answer(q, incoming))]
    if incoming.scope_change:
        sentences.append(
            f"Happy to add {incoming.scope_change}. It goes beyond what we agreed, so I will send "
            "you an updated quote and timeline for it before starting; the current work stays "
            "on schedule."
        )
    if incoming.deadline and not any(incoming.deadline in q.lower() for q in incoming.questions):
        sentences.append(
            f"{capitalize(incoming.deadline)} works: I have planned the work so you have it by "
            f"{capitalize(incoming.deadline)}, with a progress update before then."
        )
    if incoming.urgent:
        sentences.append(
            "I understand this is time-sensitive, so I can start right away and will send you a "
            "first update within 24 hours."
        )
    if incoming.price is not None:
        sentences.append(_price_sentence(incoming.price))
    if incoming.day is not None:
        sentences.append(_schedule_sentence(incoming.day))
    if context:
        sentences.append(
            f"With our earlier discussion in mind ({clip_words(context, 15)}), I will keep "
            "everything consistent with what we agreed."
        )
    if len(sentences) == 1:
        sentences.append(tone["fallback"])
    return sentences


def _price_sentence(amount: str) -> str:
    if amount:
        return (
            f"{amount} works as a starting point; I will confirm a fixed quote once the scope is "
            "clear, with no hidden costs."
        )
    return "On pricing: I will send you a clear, fixed quote once the scope is confirmed."


def _schedule_sentence(day: str) -> str:
    if day:
        return f"{capitalize(day)} works for me; send me a time that suits you and I will confirm."
    return "I am happy to set up a quick call; share two or three time slots that suit you."


def _compose_reply(incoming: _Incoming, tone_name: str, context: str, short: bool = False) -> str:
    tone = d.MESSAGE_TONES[tone_name]
    greeting = tone["greeting"].format(name=f" {incoming.sender}" if incoming.sender else "")
    sentences = _reply_sentences(incoming, tone, context)
    if short:
        # The answer that matters most: their question, else the first concrete point.
        sentences = (
            sentences[:1]
            if incoming.complaint or incoming.praise
            else (sentences[1:2] if len(sentences) > 1 else sentences)
        )
    return f"{greeting}\n\n{' '.join(sentences)}\n\n{tone['closing']}"


def write(data: Data) -> Data:
    incoming = _read_message(data["message"])
    tone = tone_of(data.get("tone"))
    context = (data.get("context") or "").strip()
    other_tone = "formal" if tone == "friendly" else "friendly"
    return {
        "reply": _compose_reply(incoming, tone, context),
        "alternatives": [
            _compose_reply(incoming, tone, context, short=True),
            _compose_reply(incoming, other_tone, context),
        ],
    }
