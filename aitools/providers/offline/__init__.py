"""The offline provider: useful, input-dependent answers from rules and templates, no model."""

import re
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from statistics import mean
from typing import Any

from aitools.providers.base import Generated, ProviderError, Readiness
from aitools.providers.offline import data as d

Data = dict[str, Any]

CENT = Decimal("0.01")
MAX_MONEY = Decimal("79999999.99")  # keeps maxPrice (x1.25) inside the contract's 10 digits
PROPOSAL_WORDS = (150, 350)


class OfflineProvider:
    name = "offline"

    def readiness(self) -> Readiness:
        return Readiness(ready=True)

    def generate(self, tool: str, data: dict[str, Any]) -> Generated:
        writer = WRITERS.get(tool)
        if writer is None:
            raise ProviderError(f"The offline provider has no tool {tool!r}.")
        output = writer(data)
        return Generated(output=output, tokens_used=count_words(output))


def count_words(value: Any) -> int:
    """Words in every string of an output, however deeply nested: the offline 'tokens'."""
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, dict):
        return sum(count_words(item) for item in value.values())
    if isinstance(value, list | tuple):
        return sum(count_words(item) for item in value)
    return 0


# --- Text helpers --------------------------------------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9+#'\u2019]*(?:-[A-Za-z0-9]+)*")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\s*\n+\s*")
_PHRASE_BREAK = re.compile(r"[.,;:!?()\[\]{}\n\"\u201c\u201d/|\u2022]+")
_BULLET_CHARS = " \t-*\u2022"
_MENTION = re.compile(
    r"(?<![\w@])@[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*(?:@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)?"
)
_HASHTAG = re.compile(r"(?<![\w#])#([A-Za-z][A-Za-z0-9_]*)")


def _tokens(text: str) -> list[str]:
    return [t.lower().replace("\u2019", "'").rstrip("'") for t in _TOKEN.findall(text)]


def _is_content(word: str) -> bool:
    return len(word) > 2 and word not in d.STOPWORDS and not word.isdigit()


def _is_topical(word: str) -> bool:
    return _is_content(word) and word not in d.GENERIC_WORDS


def _stem(word: str) -> str:
    # Just enough folding that "designs", "designed" and "designing" match "design".
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def _stems(text: str) -> set[str]:
    return {_stem(word) for word in _tokens(text)}


def _content_words(text: str) -> list[str]:
    """Content words in order of first appearance, without repeats."""
    return list(dict.fromkeys(word for word in _tokens(text) if _is_content(word)))


def _key_terms(text: str, limit: int) -> list[str]:
    counts = Counter(word for word in _tokens(text) if _is_topical(word))
    return [word for word, _ in counts.most_common(limit)]


def _sentences(text: str) -> list[str]:
    pieces = (piece.strip(_BULLET_CHARS) for piece in _SENTENCE_BREAK.split(text))
    return [piece for piece in pieces if piece]


def _first_sentence(text: str) -> str:
    return next(iter(_sentences(text)), text.strip())


def _proper_forms(text: str) -> dict[str, str]:
    """Words the text always capitalises away from a sentence start (React, SaaS, Shopify)."""
    forms: dict[str, str] = {}
    seen_lower: set[str] = set()
    for sentence in _sentences(text):
        for position, token in enumerate(_TOKEN.findall(sentence)):
            lower = token.lower()
            if token == lower:
                seen_lower.add(lower)
            elif position > 0 or token[1:] != token[1:].lower():
                forms[lower] = token
    return {word: form for word, form in forms.items() if word not in seen_lower}


def _key_phrases(text: str, limit: int) -> list[str]:
    """Runs of up to three content words ("react dashboard"), best first: what a brief is about.

    A phrase scores the summed frequency of its words, so a repeated theme outranks a word
    mentioned once, and a specific multi-word phrase outranks its parts.
    """
    runs: list[list[str]] = []
    for chunk in _PHRASE_BREAK.split(text):
        run: list[str] = []
        for word in _tokens(chunk):
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


def _clip_words(text: str, limit: int) -> str:
    words = text.split()
    if len(words) <= limit:
        return " ".join(words)
    return " ".join(words[:limit]).rstrip(",;:-") + "..."


def _clip_chars(text: str, limit: int) -> str:
    """The text cut at a word boundary so that it fits in `limit` characters."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit + 1].rsplit(" ", 1)[0]
    if len(cut) > limit:  # one word longer than the limit
        cut = text[:limit]
    return cut.rstrip(" ,;:-")


def _join(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def _distinct(items: Iterable[str]) -> list[str]:
    """The items without case-insensitive repeats, first spelling kept."""
    seen: set[str] = set()
    distinct: list[str] = []
    for item in items:
        if item.lower() not in seen:
            seen.add(item.lower())
            distinct.append(item)
    return distinct


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:]


def _tone(value: str | None) -> str:
    for word in _tokens(value or ""):
        if word in d.TONE_ALIASES:
            return d.TONE_ALIASES[word]
    return d.DEFAULT_TONE


def _platform_key(value: str | None) -> str:
    """'Dev.to', 'devto' and ' DevTo ' all name the platform the tables call 'devto'."""
    return "".join(_tokens(value or ""))


def _money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


_SECOND_PERSON_PATTERN = re.compile(
    r"\b(" + "|".join(sorted(d.SECOND_PERSON, key=len, reverse=True)) + r")\b", re.IGNORECASE
)


def _as_second_person(text: str) -> str:
    """A client's 'we need X' retold to them as 'you need X'."""

    def swap(match: re.Match[str]) -> str:
        replacement = d.SECOND_PERSON[match.group(0).lower()]
        return _capitalize(replacement) if match.start() == 0 else replacement

    return _SECOND_PERSON_PATTERN.sub(swap, text.replace("\u2019", "'"))


# --- proposal_generate ---------------------------------------------------------------------------


def _proposal(data: Data) -> Data:
    description: str = data["jobDescription"]
    job_title = (data.get("jobTitle") or "").strip()
    tone = d.PROPOSAL_TONES[_tone(data.get("tone"))]
    skills = _distinct(_clip_words(skill, 5) for skill in data["skills"] if skill.strip())[:4]
    # The title states the brief's theme, so it weighs in on which phrases lead.
    phrases = _key_phrases(f"{job_title}\n{description}", 5) or ["project"]
    known = {skill.lower() for skill in skills}
    needs = [phrase for phrase in phrases if phrase.lower() not in known] or phrases
    topic = (_key_phrases(job_title, 1) or needs)[0]
    name = _clip_words((data.get("clientName") or "").strip(), 5)
    budget = _clip_words((data.get("budget") or "").strip(), 8)

    greeting = tone["greeting"].format(name=name) if name else tone["greeting_anonymous"]
    body = [
        tone["opening"].format(topic=topic),
        _proposal_understanding(description, needs),
        _proposal_experience(skills, needs),
        _proposal_plan(needs),
    ]
    if budget:
        body.append(_proposal_budget(budget))
    closing = tone["closing"].format(focus=needs[0])
    if count_words([greeting, *body, closing]) < PROPOSAL_WORDS[0]:
        body.append(_proposal_reliability())
    content = "\n\n".join([greeting, *body, closing, tone["signoff"]])
    return {"title": _proposal_title(job_title, description), "content": content}


def _proposal_title(job_title: str, description: str) -> str:
    return _clip_chars(job_title or _first_sentence(description), 80) or "Proposal"


def _key_sentences(text: str, limit: int) -> list[str]:
    """The sentences that say what the client needs, in their original order.

    A sentence scores the key terms it carries, plus a bonus for wording that states a need
    ("we need", "must", "looking for"), so background like "we are a startup" ranks lower.
    """
    terms = set(_key_terms(text, 12))
    sentences = list(dict.fromkeys(_sentences(text)))
    scores = {}
    for sentence in sentences:
        words = set(_tokens(sentence))
        coverage = len(terms & words)
        scores[sentence] = coverage + 2 * bool(coverage and words & d.NEED_WORDS)
    best = set(sorted(sentences, key=lambda s: -scores[s])[:limit])
    return [s for s in sentences if s in best and scores[s] > 0]


def _proposal_understanding(description: str, needs: list[str]) -> str:
    lines = ["Here is what I understand you need:"]
    lines += [f"- {_clip_words(_as_second_person(s), 25)}" for s in _key_sentences(description, 3)]
    lines.append(f"In short, the key pieces are {_join(needs[:3])}.")
    return "\n".join(lines)


def _proposal_experience(skills: list[str], needs: list[str]) -> str:
    pitfalls = "so I know where the usual pitfalls are and how to avoid them early."
    if not skills:
        return f"I have delivered similar work involving {_join(needs[:2])}, {pitfalls}"
    return (
        f"I bring hands-on experience with {_join(skills)}, exactly what the {needs[0]} calls "
        f"for. I have used {skills[0]} on client work of a similar size, {pitfalls}"
    )


def _proposal_plan(needs: list[str]) -> str:
    return (
        "My plan: 1) a short kickoff to confirm scope, priorities and success criteria; "
        f"2) an early first version of the {needs[0]} so you can give feedback while changes "
        "are cheap; 3) refinement, testing and a clean handover with notes, so you stay in "
        "control after we finish."
    )


def _proposal_budget(budget: str) -> str:
    return (
        f"Your budget of {budget} fits the scope as described. After a quick look at the details "
        "I will confirm a fixed price and timeline, with no surprises along the way."
    )


def _proposal_reliability() -> str:
    return (
        "You can count on clear communication throughout: short progress updates at every "
        "milestone, honest answers when something needs a decision, and your deadline treated "
        "as my own."
    )


# --- gig_generate --------------------------------------------------------------------------------


def _service_action(service: str) -> str:
    """The service as what follows 'I will': 'logo design' becomes 'provide logo design'."""
    text = _service_phrase(service)
    first = _tokens(text)[:1]
    if first and first[0] in d.SERVICE_VERBS:
        return text
    return f"provide professional {text}"


def _service_phrase(service: str) -> str:
    """The service without a leading 'I will', lower-cased unless it starts with a name."""
    text = re.sub(r"^\s*i\s+will\s+", "", service, flags=re.IGNORECASE).strip(" .!")
    first_word = text.split()[0] if text.split() else ""
    if first_word[1:] == first_word[1:].lower():  # "Logo", not "WordPress" or "SEO"
        text = text[:1].lower() + text[1:]
    return text


def _gig(data: Data) -> Data:
    action = _service_action(data["service"])
    audience = (data.get("targetAudience") or "").strip()
    category = (data.get("category") or "").strip()
    keywords = [" ".join(k.strip(" #").split()) for k in data["keywords"] if k.strip(" #")]
    rate = _gig_rate(" ".join([category, data["service"], *keywords]))
    focus = keywords[:2] or _key_terms(data["service"], 2) or [category or "the details"]
    packages = _gig_packages(action, focus, rate)
    return {
        "title": _gig_title(action, audience),
        "description": _gig_description(action, audience, category, keywords, data.get("platform")),
        "tags": _gig_tags(data["service"], category, keywords),
        "packages": packages,
        "faq": _gig_faq(action, audience, rate.days),
    }


def _gig_title(action: str, audience: str) -> str:
    title = f"I will {action}"
    # Naming the buyer makes a title searchable and gets a short one into the 40-80 range.
    with_audience = f"{title} for {audience or 'your business'}"
    if (audience or len(title) < 40) and len(with_audience) <= 80:
        return with_audience
    return _clip_chars(title, 80)


def _gig_description(
    action: str, audience: str, category: str, keywords: list[str], platform: str | None
) -> str:
    who = audience or "businesses and creators"
    intro = (
        f"Looking for someone to {action}? I help {who} with exactly that: clear communication, "
        "careful work and delivery on the date we agree."
    )
    included = ["What you get:", "- A result tailored to your goals, audience and style"]
    if keywords:
        included.append(f"- Focus on {_join(keywords[:5])}")
    if category:
        included.append(f"- {_capitalize(category)} best practices from the first draft")
    included.append("- Progress updates at every step and revisions in every package")
    process = (
        "How it works: send me your brief and any references, I confirm the details and the "
        "timeline, then you review a first version before the final delivery."
    )
    why = (
        "Why work with me: I ask the right questions before starting, keep you updated without "
        "being asked, and I am not done until you are happy with the result and have every "
        "file you need."
    )
    where = f" here on {_capitalize(platform.strip())}" if platform and platform.strip() else ""
    closing = (
        f"Not sure which package fits? Message me{where} before ordering and I will recommend "
        "the right one for your project."
    )
    return "\n\n".join([intro, "\n".join(included), process, why, closing])


def _gig_tags(service: str, category: str, keywords: list[str]) -> list[str]:
    service_words = _content_words(_service_phrase(service))
    tags = _unique_tags([*keywords, *service_words, category])[:5]
    if len(tags) < 3:
        # Too few of the seller's own words: fill up with phrases buyers search for.
        head = service_words[-1] if service_words else "freelance"
        fillers = [f"{head} services", f"professional {head}", f"custom {head}"]
        tags = _unique_tags([*tags, *fillers])[:3]
    return tags


def _unique_tags(candidates: list[str]) -> list[str]:
    """Lower-case, de-duplicated tags of at most 20 characters, the marketplaces' usual cap."""
    tags: list[str] = []
    for candidate in candidates:
        tag = " ".join(candidate.lower().split())
        if tag and len(tag) <= 20 and tag not in tags:
            tags.append(tag)
    return tags


def _gig_rate(text: str) -> d.GigRate:
    words = set(_tokens(text))
    return next((rate for rate in d.GIG_RATES if words & set(rate.words)), d.GIG_DEFAULT_RATE)


def _gig_packages(action: str, focus: list[str], rate: d.GigRate) -> list[Data]:
    features = (
        [f"One focused deliverable: {_clip_words(action, 8)}", "1 revision"],
        ["Everything in Basic", f"Extra attention to {focus[0]}", "3 revisions", "Source files"],
        [
            "Everything in Standard",
            f"Full coverage of {_join(focus[:2])}",
            "Unlimited revisions within the agreed scope",
            "Priority support and a follow-up call",
        ],
    )
    names = ("Basic", "Standard", "Premium")
    return [
        {"name": name, "price": Decimal(price), "deliveryDays": day, "features": feature}
        for name, price, day, feature in zip(names, rate.prices, rate.days, features, strict=True)
    ]


def _gig_faq(action: str, audience: str, days: tuple[int, int, int]) -> list[Data]:
    faq = [
        {
            "question": f"What do you need from me to {action}?",
            "answer": (
                "Your goals, a few examples you like and any must-haves or deadlines. "
                "The clearer the brief, the faster I can start."
            ),
        },
        {
            "question": f"How long does it take to {action}?",
            "answer": (
                f"Basic is delivered in {days[0]} days, Standard in {days[1]} days and Premium "
                f"in {days[2]} days. Ask me before ordering if you need it sooner."
            ),
        },
        {
            "question": f"Can I ask for changes after you {action}?",
            "answer": (
                "Yes. Basic includes 1 revision, Standard 3 and Premium unlimited revisions "
                "within the agreed scope."
            ),
        },
    ]
    if audience:
        faq.append(
            {
                "question": f"Do you {action} for {audience}?",
                "answer": f"Yes. I tailor every order to {audience} and what matters most to them.",
            }
        )
    return faq


# --- keywords_find -------------------------------------------------------------------------------

MAX_KEYWORDS = 12


def _keywords(data: Data) -> Data:
    topic = " ".join(_tokens(data["topic"])[:6]) or data["topic"].strip().lower()
    platform = " ".join(_tokens(data.get("platform") or ""))
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


# --- pricing_optimize ----------------------------------------------------------------------------


def _pricing(data: Data) -> Data:
    """The market range for this experience level, service and delivery time; the
    recommendation always lies inside it (a price below the floor is raised to the floor, one
    above the ceiling lowered to it, one inside moved halfway toward the market price)."""
    level = data.get("experienceLevel") or d.DEFAULT_LEVEL
    currency = data.get("currency") or "USD"
    rate = d.HOURLY_RATES[level] * d.CURRENCY_PER_USD.get(currency, Decimal(1))
    hours = _service_hours(data["service"])
    factor, delivery_reason = _delivery_factor(data.get("deliveryDays"))
    market = _money(min(max(rate * hours * factor, Decimal(1)), MAX_MONEY))
    low, high = _money(market * Decimal("0.85")), _money(market * Decimal("1.25"))
    # Decimal(str(...)) also accepts a float from a caller that skipped the input serializer.
    current = Decimal(str(data["currentPrice"])) if data.get("currentPrice") else None
    if current is None:
        recommended = market
    elif current < low:
        recommended = low
    elif current > high:
        recommended = high
    else:
        recommended = _money(current + (market - current) / 2)
    sentences = [
        f"{_capitalize(level)} freelancers charge about {_money(rate)} {currency} an hour, and "
        f"'{_clip_words(data['service'], 8)}' typically takes {hours} hours, so the market "
        f"price is {market} {currency} ({delivery_reason}), within {low}-{high} {currency}.",
        _current_price_advice(current, low, high, recommended, currency),
        f"Quote near {low} {currency} for a simple brief and near {high} {currency} for extra "
        "revisions or complex requirements.",
    ]
    if currency not in d.CURRENCY_PER_USD:
        sentences.append(f"No exchange rate is known for {currency}, so amounts are USD-level.")
    return {
        "recommendedPrice": recommended,
        "minPrice": low,
        "maxPrice": high,
        "currency": currency,
        "rationale": " ".join(s for s in sentences if s),
    }


def _service_hours(service: str) -> int:
    words = {_stem(word) for word in _tokens(service)}
    for names, hours in d.SERVICE_HOURS:
        if words & {_stem(name) for name in names}:
            return hours
    return d.DEFAULT_SERVICE_HOURS


def _delivery_factor(days: int | None) -> tuple[Decimal, str]:
    if days is None:
        return Decimal(1), "no delivery time given, so no rush adjustment"
    for up_to, factor, reason in d.DELIVERY_FACTORS:
        if days <= up_to:
            return factor, f"{days}-day delivery: {reason}"
    return Decimal(1), f"{days}-day delivery"


def _current_price_advice(
    current: Decimal | None, low: Decimal, high: Decimal, recommended: Decimal, currency: str
) -> str:
    if current is None:
        return ""
    if current < low:
        gap = (low - current) / low * 100
        return (
            f"Your current price of {current} {currency} is {gap:.0f}% below the bottom of that "
            f"range: raise it to {recommended} {currency}; below it, buyers read the price as a "
            "sign of low quality and the work does not pay for your time."
        )
    if current > high:
        return (
            f"Your current price of {current} {currency} is above what the market pays at this "
            f"level; {recommended} {currency} keeps you at the top of the range until reviews "
            "and a portfolio justify more."
        )
    return (
        f"Your current price of {current} {currency} is inside the range; moving to "
        f"{recommended} {currency} brings it halfway to the market price without a jump that "
        "would stall orders."
    )


# --- gig_health ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Check:
    name: str
    weight: int  # the weights of all checks add up to 100
    passed: bool
    fix: str


def _gig_health(data: Data) -> Data:
    title: str = data["title"].strip()
    description: str = data["description"]
    checks = [
        _title_length_check(title),
        _Check(
            "Title starts with 'I will'",
            10,
            title.lower().startswith("i will "),
            f"Start the title with 'I will', e.g. 'I will {_service_action(title.lower())}'.",
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
    keywords = [w for w in _content_words(title) if w != "will"]
    described = _stems(description)
    missing = [w for w in keywords if _stem(w) not in described]
    if not keywords:
        return _Check(
            "Title keywords in description", 15, False, "Put your main keyword in the title."
        )
    return _Check(
        "Title keywords in description",
        15,
        len(missing) * 2 <= len(keywords),
        f"Mention {_join(missing[:4])} in the description so search matches the title.",
    )


def _price_check(price: Decimal | None) -> _Check:
    fix = (
        "Add a starting price."
        if price is None
        else f"Raise the starting price above 5 (now {price})."
    )
    return _Check("Price set", 10, price is not None and price > 5, fix)


def _shouting_words(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text) if t.isupper() and sum(c.isalpha() for c in t) >= 5]


def _shouting_check(text: str) -> _Check:
    loud = _shouting_words(text)
    target = f"'{loud[0]}'" if loud else "the text"
    return _Check(
        "No shouting",
        10,
        not loud and "!!" not in text,
        f"Write {target} in normal case and drop repeated exclamation marks: they read as spam.",
    )


# --- portfolio_generate --------------------------------------------------------------------------


def _portfolio(data: Data) -> Data:
    skills = _distinct(_clip_words(skill, 5) for skill in data["skills"]) or ["freelancing"]
    client = _clip_words((data.get("targetClient") or "").strip(), 8)
    projects: list[Data] = data["projects"]
    case_studies = [_case_study(project, skills) for project in projects[:20]]
    if not case_studies:
        case_studies = [_sample_case_study(skill, client) for skill in skills[:2]]
    return {
        "headline": _portfolio_headline(skills, client),
        "summary": _portfolio_summary(skills, client, projects),
        "caseStudies": case_studies,
    }


def _portfolio_headline(skills: list[str], client: str) -> str:
    specialist = " & ".join(skills[:2])
    return f"{specialist} specialist helping {client or 'businesses'} turn ideas into results"


def _portfolio_summary(skills: list[str], client: str, projects: list[Data]) -> str:
    parts = [
        f"I am a freelancer specialising in {_join(skills[:4])}.",
        f"I work with {client or 'clients'} who want {skills[0]} done properly: a clear scope up "
        "front, regular progress updates and results that are easy to build on.",
    ]
    titles = [_clip_words(p["title"], 8) for p in projects[:3]]
    if titles:
        parts.append(f"Recent work includes {_join(titles)}.")
    outcomes = [p["outcome"] for p in projects if _sentences(p.get("outcome") or "")]
    if outcomes:
        parts.append(f"Highlight: {_clip_words(_first_sentence(outcomes[0]), 25)}")
    return " ".join(parts)


def _case_study(project: Data, skills: list[str]) -> Data:
    title = project["title"].strip()
    sentences = _sentences(project.get("description") or "")
    words = _stems(project.get("description") or "")
    used = [s for s in skills if _stems(s) <= words] or skills[:2]
    challenge = (
        sentences[0]
        if sentences
        else f"The client needed {title} delivered to a professional standard."
    )
    approach = " ".join(sentences[1:]) or (
        "I agreed the scope first, delivered a first version early and refined it in short "
        "feedback cycles with the client."
    )
    outcome = (project.get("outcome") or "").strip()
    return {
        "title": title,
        "challenge": _clip_words(challenge, 40),
        "solution": f"Using {_join(used)}: {_clip_words(approach, 50)}",
        "result": _clip_words(outcome, 60)
        or f"{title} was delivered and handed over, ready to use.",
    }


def _sample_case_study(skill: str, client: str) -> Data:
    who = client or "a growing business"
    return {
        "title": f"{_capitalize(skill)} for {who}",
        "challenge": f"{_capitalize(who)} needed {skill} done well, without a long hiring process.",
        "solution": (
            f"I scoped the work in a short call, delivered a first version early and refined it "
            f"with feedback, applying {skill} best practices throughout."
        ),
        "result": f"A sample engagement showing how I deliver {skill}; replace it with a real "
        "project and its numbers once you have one.",
    }


# --- messages_reply ------------------------------------------------------------------------------


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
    for sentence in _sentences(message):
        sentence_words = set(_tokens(sentence))
        if sentence_words & d.COMPLAINT_WORDS or any(
            p in sentence.lower() for p in d.COMPLAINT_PHRASES
        ):
            return _clip_words(sentence.rstrip(".!"), 25)
    return None


def _read_message(message: str) -> _Incoming:
    words = set(_tokens(message))
    amount = _AMOUNT.search(message)
    days = [day for day in d.WEEKDAYS if day in words]
    stars = _STARS.search(message)
    complaint = _complaint(message, words)
    praise = not complaint and bool(words & d.PRAISE_WORDS or stars)
    scope = _SCOPE.search(message)
    meeting = bool(words & d.SCHEDULE_WORDS)
    return _Incoming(
        # Praise and complaints are answered by what they say, not by a guessed topic word.
        topic=(_key_phrases(message, 1) or ["your project"])[0],
        sender=_sender_name(message),
        questions=[s for s in _sentences(message) if s.endswith("?")][:2],
        urgent=bool(words & d.URGENCY_WORDS),
        thanks=bool(words & d.THANKS_WORDS),
        price=amount.group(0) if amount else ("" if words & d.PRICE_WORDS else None),
        day=(days[0] if days else "") if meeting else None,
        deadline=days[0] if days and not meeting else None,
        complaint=complaint,
        praise=praise,
        stars=stars.group(1) if stars else None,
        scope_change=(
            _clip_words(
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
            return f"{answer} {_clip_words(rest, 20)}."
    words = set(_tokens(lowered))
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
            f"{_capitalize(incoming.deadline)} works: I have planned the work so you have it by "
            f"{_capitalize(incoming.deadline)}, with a progress update before then."
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
            f"With our earlier discussion in mind ({_clip_words(context, 15)}), I will keep "
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
        return f"{_capitalize(day)} works for me; send me a time that suits you and I will confirm."
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


def _messages_reply(data: Data) -> Data:
    incoming = _read_message(data["message"])
    tone = _tone(data.get("tone"))
    context = (data.get("context") or "").strip()
    other_tone = "formal" if tone == "friendly" else "friendly"
    return {
        "reply": _compose_reply(incoming, tone, context),
        "alternatives": [
            _compose_reply(incoming, tone, context, short=True),
            _compose_reply(incoming, other_tone, context),
        ],
    }


# --- reviews_analyze -----------------------------------------------------------------------------

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
    words = _tokens(review.get("text") or "")
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
            words = _tokens(clause)
            polarity = _polarity(words) or fallback
            if polarity:
                target = praised if polarity > 0 else criticised
                target.update(_aspects(words))
    return praised, criticised


def _reviews_analyze(data: Data) -> Data:
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
    return f"{_capitalize(aspect)} ({mentions} mention{'s' if mentions != 1 else ''})"


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
        parts.append(f"Clients most often praise {_join([a for a, _ in praised.most_common(2)])}.")
    if criticised:
        parts.append(f"The main concern is {criticised.most_common(1)[0][0]}; address it first.")
    else:
        parts.append("No recurring complaints stand out.")
    return " ".join(parts)


# --- seo_audit -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Issue:
    severity: str
    field: str
    message: str
    fix: str


def _seo_audit(data: Data) -> Data:
    title: str = data["title"].strip()
    description: str = data["description"]
    tags = [" ".join(tag.lower().split()) for tag in data["tags"] if tag.strip()]
    limits = d.PLATFORM_LISTING_LIMITS.get(_platform_key(data.get("platform")), {})
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
    if _shouting_words(title):
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
    keywords = [w for w in _content_words(title) if w != "will"]
    opening = _stems(description[:150])
    if not keywords or any(_stem(w) in opening for w in keywords):
        return []
    main = _join([f"'{w}'" for w in keywords[:2]])
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
    described = _stems(description)
    missing = [tag for tag in tags if not _stems(tag) <= described]
    if missing:
        issues.append(
            _Issue(
                "low",
                "tags",
                f"Tags not used in the description: {', '.join(missing[:5])}.",
                f"Mention {_join(missing[:3])} in the description, or replace those tags.",
            )
        )
    return issues


def _seo_stuffing_issues(description: str) -> list[_Issue]:
    words = _tokens(description)
    counts = Counter(w for w in words if _is_content(w))
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
    lengths = [len(s.split()) for s in _sentences(description)]
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


# --- social_ai_generate --------------------------------------------------------------------------


def _social(data: Data) -> Data:
    platform = _platform_key(data.get("platform"))
    tone = _tone(data.get("tone"))
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
        "title": _capitalize(_clip_chars(topic, 60)),
        "content": content,
        "hashtags": hashtags,
        "mentions": list(dict.fromkeys(m.rstrip(".") for m in _MENTION.findall(source))),
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
    first = _first_sentence(text)
    clause = re.split(r"[,;:(]|\s[-\u2013\u2014]\s", _INSTRUCTION.sub("", first))[0]
    return " ".join(clause.rstrip(".!?").split()[:12]) or first


def _post_kind(text: str) -> str:
    words = set(_tokens(text))
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
    hook = _CHOICE.choice(d.POST_HOOKS[kind]).format(topic=topic, Topic=_capitalize(topic))
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
    text = " ".join(_capitalize(sentence) for sentence in _sentences(text))
    last_word = text.split()[-1] if text else ""
    # A hashtag, handle or link at the end takes no full stop.
    return f"{text}." if re.fullmatch(r"[A-Za-z0-9']+", last_word) else text


def _rewritten_post(content: str, tone: str) -> str:
    text = _tightened(content) or content.strip()
    if tone == "formal":
        return _expand_contractions(text)
    if tone == "confident":
        return _capitalize(re.sub(d.HEDGES, "", text, flags=re.IGNORECASE))
    if not text.lower().startswith(("hey", "hi ")):
        return f"Hey everyone! {text}"
    return text


def _expand_contractions(text: str) -> str:
    pattern = r"\b(" + "|".join(re.escape(c) for c in d.CONTRACTIONS) + r")\b"

    def expand(match: re.Match[str]) -> str:
        full = d.CONTRACTIONS[match.group(0).lower()]
        return _capitalize(full) if match.group(0)[0].isupper() else full

    return re.sub(pattern, expand, text, flags=re.IGNORECASE)


def _suggestions(content: str, tone: str, platform: str, limit: int, hashtags: list[str]) -> str:
    """Numbered, concrete edits for a draft, ending with the draft tightened."""
    sentences = _sentences(content)
    tips: list[str] = []
    if sentences and not sentences[0].endswith("?") and len(sentences[0].split()) > 12:
        hook = _clip_words(sentences[0], 8)
        tips.append(f'Open with a shorter hook than "{hook}", e.g. a question.')
    if len(content) > limit:
        where = platform or "this platform"
        tips.append(f"Cut it to {limit} characters for {where} (now {len(content)}).")
    if not any(s.endswith("?") for s in sentences):
        tips.append("End with a question to invite replies.")
    if hashtags and not _HASHTAG.search(content):
        tips.append(f"Add hashtags such as {' '.join(hashtags)}.")
    if _shouting_words(content) or "!!" in content:
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
    for sentence in _sentences(text):
        candidate = f"{kept} {sentence}".strip()
        if len(candidate) > limit:
            break
        kept = candidate
    return kept or _clip_chars(text, limit - 3) + "..."


def _hashtags(text: str, platform: str) -> list[str]:
    """The author's own hashtags first, then two-word key phrases, then single key terms."""
    most = min(d.SOCIAL_HASHTAGS.get(platform, d.DEFAULT_HASHTAGS), 5)
    cleaned = _HASHTAG.sub(" ", _MENTION.sub(" ", _INSTRUCTION.sub("", text.strip())))
    pairs = [p for p in _key_phrases(cleaned, 5) if len(p.split()) == 2]
    candidates = [
        *(f"#{tag}" for tag in _HASHTAG.findall(text)),
        *(_camel_tag(term) for term in [*pairs, *_key_terms(cleaned, 5)]),
    ]
    return list(dict.fromkeys(tag for tag in candidates if len(tag) > 1))[:most]


def _camel_tag(term: str) -> str:
    return "#" + "".join(_capitalize(word) for word in re.findall(r"[A-Za-z0-9]+", term))


WRITERS: dict[str, Callable[[Data], Data]] = {
    "proposal_generate": _proposal,
    "gig_generate": _gig,
    "keywords_find": _keywords,
    "pricing_optimize": _pricing,
    "gig_health": _gig_health,
    "portfolio_generate": _portfolio,
    "messages_reply": _messages_reply,
    "reviews_analyze": _reviews_analyze,
    "seo_audit": _seo_audit,
    "social_ai_generate": _social,
}
