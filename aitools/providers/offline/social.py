"""social_ai_generate: a post generated, rewritten or critiqued for a platform, with hashtags."""

import re
import secrets

from aitools.providers.offline import data as d
from aitools.providers.offline.text import (
    HASHTAG,
    MENTION,
    Data,
    capitalize,
    clip_chars,
    clip_words,
    first_sentence,
    key_phrases,
    key_terms,
    platform_key,
    shouting_words,
    split_sentences,
    tokens,
    tone_of,
)


def write(data: Data) -> Data:
    platform = platform_key(data.get("platform"))
    tone = tone_of(data.get("tone"))
    action = data["action"]
    source: str = data["prompt"] if action == "generate" else data["content"]
    topic = _topic_of(_tightened(source))
    hashtags = _hashtags(_tightened(source), platform)
    limit = d.SOCIAL_LIMITS.get(platform, d.DEFAULT_SOCIAL_LIMIT)
    # Room for the hashtags line, so the post still fits once they are appended.
    room = limit - len(" ".join(hashtags)) - 2 if hashtags else limit
    if action == "generate":
        length = data.get("length") or ("long" if limit >= 2000 else "medium")
        content = _fit(_generated_post(topic, source, tone, length, platform, room), room)
    elif action == "rewrite":
        content = _fit(_rewritten_post(source, tone), room)
    else:
        content = _suggestions(source, tone, platform, limit, hashtags)
    return {
        "title": capitalize(clip_chars(topic, 60)),
        "content": content,
        "hashtags": hashtags,
        "mentions": list(dict.fromkeys(m.rstrip(".") for m in MENTION.findall(source))),
        "cta": d.SOCIAL_CTAS.get(platform, d.DEFAULT_CTA),
    }


_INSTRUCTION = re.compile(
    r"^(?:please\s+)?(?:write|create|draft|make|generate|compose)\s+(?:me\s+)?(?:an?\s+)?"
    r"(?:\w+\s+)?(?:post|tweet|thread|update|caption|article|status)\s+"
    r"(?:about|on|for|announcing|sharing|celebrating|promoting|introducing)\s+",
    re.IGNORECASE,
)


# Variants: each generation picks its own (a regeneration is a new text, worth its credit).
_CHOICE = secrets.SystemRandom()


def _topic_of(text: str) -> str:
    """'Write a LinkedIn post about pricing my design work, for beginners' -> 'pricing my
    design work': the first clause of the first sentence, without the instruction."""
    first = first_sentence(text)
    clause = re.split(r"[,;:(]|\s[-\u2013\u2014]\s", _INSTRUCTION.sub("", first))[0]
    return " ".join(clause.rstrip(".!?").split()[:12]) or first


def _post_kind(text: str) -> str:
    words = set(tokens(text))
    for kind, markers in d.POST_KINDS:
        if words & markers:
            return kind
    return d.DEFAULT_POST_KIND


def _generated_post(
    topic: str, prompt: str, tone: str, length: str, platform: str, room: int
) -> str:
    """A post about the prompt's subject, shaped for the platform, a new variant each call:
    short platforms get the hook and a question on one line; long ones a hook, short
    paragraphs and the question; dev.to a markdown article outline."""
    kind = _post_kind(prompt)
    hook = _CHOICE.choice(d.POST_HOOKS[kind]).format(topic=topic, Topic=capitalize(topic))
    body = list(_CHOICE.choice(d.POST_BODIES[kind]))
    question = _CHOICE.choice(d.POST_QUESTIONS[kind])
    count = d.BODY_SENTENCES.get(length.strip().lower(), 2)
    if tone == "formal":
        body = [_expand_contractions(sentence) for sentence in body]
    elif tone == "confident":
        hook = hook.replace("I wish I had known", "you need to know")
    if platform in ("bluesky", "twitter", "x", "threads", "mastodon"):
        # As many body sentences as fit between the hook and the question (which stays).
        kept: list[str] = []
        for sentence in body[: max(1, count - 1)]:
            if len(" ".join([hook, *kept, sentence, question])) > room:
                break
            kept.append(sentence)
        return " ".join([hook, *kept, question])
    if platform == "devto":
        sections = "\n\n".join(f"## {i}. {sentence}" for i, sentence in enumerate(body, 1))
        return f"{hook}\n\n{sections}\n\n{question}"
    return "\n\n".join([hook, *body[:count], question])


def _tightened(text: str) -> str:
    """Filler words out, spacing and capitals fixed, repeated punctuation collapsed."""
    text = " ".join(text.split())
    for pattern, replacement in d.TIGHTER_PHRASES:
        text = re.sub(pattern, replacement, text, flags=re.IGNORECASE)
    text = re.sub(r"\s+([,.!?;:])", r"\1", text)
    text = re.sub(r"([,!?;:])(?=[A-Za-z])", r"\1 ", text)
    # A full stop glued to a capital ends a sentence; between lower-case letters it is part of
    # a handle or a domain (@anna.bsky.social), which must stay intact.
    text = re.sub(r"(?<=[a-z])\.(?=[A-Z])", ". ", text)
    text = re.sub(r"([!?.])\1+", r"\1", text)
    text = re.sub(r"\bi\b(?![.@])", "I", text)
    text = " ".join(capitalize(sentence) for sentence in split_sentences(text))
    last_word = text.split()[-1] if text else ""
    # A hashtag, handle or link at the end takes no full stop.
    return f"{text}." if re.fullmatch(r"[A-Za-z0-9']+", last_word) else text


def _rewritten_post(content: str, tone: str) -> str:
    text = _tightened(content) or content.strip()
    if tone == "formal":
        return _expand_contractions(text)
    if tone == "confident":
        return capitalize(re.sub(d.HEDGES, "", text, flags=re.IGNORECASE))
    if not text.lower().startswith(("hey", "hi ")):
        return f"Hey everyone! {text}"
    return text


def _expand_contractions(text: str) -> str:
    pattern = r"\b(" + "|".join(re.escape(c) for c in d.CONTRACTIONS) + r")\b"

    def expand(match: re.Match[str]) -> str:
        full = d.CONTRACTIONS[match.group(0).lower()]
        return capitalize(full) if match.group(0)[0].isupper() else full

    return re.sub(pattern, expand, text, flags=re.IGNORECASE)


def _suggestions(content: str, tone: str, platform: str, limit: int, hashtags: list[str]) -> str:
    """Numbered, concrete edits for a draft, ending with the draft tightened."""
    sentences = split_sentences(content)
    tips: list[str] = []
    if sentences and not sentences[0].endswith("?") and len(sentences[0].split()) > 12:
        hook = clip_words(sentences[0], 8)
        tips.append(f'Open with a shorter hook than "{hook}", e.g. a question.')
    if len(content) > limit:
        where = platform or "this platform"
        tips.append(f"Cut it to {limit} characters for {where} (now {len(content)}).")
    if not any(s.endswith("?") for s in sentences):
        tips.append("End with a question to invite replies.")
    if hashtags and not HASHTAG.search(content):
        tips.append(f"Add hashtags such as {' '.join(hashtags)}.")
    if shouting_words(content) or "!!" in content:
        tips.append("Drop ALL-CAPS words and repeated exclamation marks.")
    if any(len(s.split()) > 25 for s in sentences):
        tips.append("Split sentences longer than 25 words.")
    tips.append(f"Tightened draft: {_fit(_rewritten_post(content, tone), min(limit, 500))}")
    return "\n".join(f"{n}. {tip}" for n, tip in enumerate(tips, start=1))


def _fit(text: str, limit: int) -> str:
    """The text within `limit` characters: whole sentences first, else cut at a word."""
    limit = max(limit, 20)
    if len(text) <= limit:
        return text
    kept = ""
    for sentence in split_sentences(text):
        candidate = f"{kept} {sentence}".strip()
        if len(candidate) > limit:
            break
        kept = candidate
    return kept or clip_chars(text, limit - 3) + "..."


def _hashtags(text: str, platform: str) -> list[str]:
    """The author's own hashtags first, then two-word key phrases, then single key terms."""
    most = min(d.SOCIAL_HASHTAGS.get(platform, d.DEFAULT_HASHTAGS), 5)
    cleaned = HASHTAG.sub(" ", MENTION.sub(" ", _INSTRUCTION.sub("", text.strip())))
    pairs = [p for p in key_phrases(cleaned, 5) if len(p.split()) == 2]
    candidates = [
        *(f"#{tag}" for tag in HASHTAG.findall(text)),
        *(_camel_tag(term) for term in [*pairs, *key_terms(cleaned, 5)]),
    ]
    return list(dict.fromkeys(tag for tag in candidates if len(tag) > 1))[:most]


def _camel_tag(term: str) -> str:
    return "#" + "".join(capitalize(word) for word in re.findall(r"[A-Za-z0-9]+", term))
