"""gig_generate: a gig's title, description, tags, three priced packages and its FAQ."""

from decimal import Decimal

from aitools.providers.offline import data as d
from aitools.providers.offline.text import (
    Data,
    capitalize,
    clip_chars,
    clip_words,
    content_words,
    join,
    key_terms,
    service_action,
    service_phrase,
    tokens,
)


def write(data: Data) -> Data:
    action = service_action(data["service"])
    audience = (data.get("targetAudience") or "").strip()
    category = (data.get("category") or "").strip()
    keywords = [" ".join(k.strip(" #").split()) for k in data["keywords"] if k.strip(" #")]
    rate = _gig_rate(" ".join([category, data["service"], *keywords]))
    focus = keywords[:2] or key_terms(data["service"], 2) or [category or "the details"]
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
    return clip_chars(title, 80)


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
        included.append(f"- Focus on {join(keywords[:5])}")
    if category:
        included.append(f"- {capitalize(category)} best practices from the first draft")
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
    where = f" here on {capitalize(platform.strip())}" if platform and platform.strip() else ""
    closing = (
        f"Not sure which package fits? Message me{where} before ordering and I will recommend "
        "the right one for your project."
    )
    return "\n\n".join([intro, "\n".join(included), process, why, closing])


def _gig_tags(service: str, category: str, keywords: list[str]) -> list[str]:
    service_words = content_words(service_phrase(service))
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
    words = set(tokens(text))
    return next((rate for rate in d.GIG_RATES if words & set(rate.words)), d.GIG_DEFAULT_RATE)


def _gig_packages(action: str, focus: list[str], rate: d.GigRate) -> list[Data]:
    features = (
        [f"One focused deliverable: {clip_words(action, 8)}", "1 revision"],
        ["Everything in Basic", f"Extra attention to {focus[0]}", "3 revisions", "Source files"],
        [
            "Everything in Standard",
            f"Full coverage of {join(focus[:2])}",
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
