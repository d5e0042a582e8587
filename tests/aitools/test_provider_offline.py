"""The offline provider: every tool answers in its contract's shape, from its input, by rule."""

from decimal import Decimal
from typing import Any

import pytest

from aitools.providers.base import ProviderError
from aitools.providers.offline import OfflineProvider
from aitools.tools import TOOLS, validate_output

provider = OfflineProvider()

GOOD_GIG_DESCRIPTION = (
    "Need a logo that makes your small business look established? I design modern, minimalist "
    "logos that work on a storefront, a website and a business card alike.\n\n"
    "What you get:\n- Three original logo concepts based on your brief\n- A brand colour palette "
    "and font pairing\n- Vector files ready for print and web\n\n"
    "How it works: you tell me about your business, your customers and the styles you like. "
    "I sketch several directions, turn the strongest into polished concepts and refine your "
    "favourite until it feels right. Every logo is drawn from scratch, never from a template, "
    "so it is yours alone. I have helped cafes, studios and online shops find a look that "
    "customers remember. Message me before ordering if you need branding beyond the logo, such "
    "as social media kits or packaging, and I will put together a custom offer for you."
)

# Two realistic requests per tool, different enough that their answers must differ.
EXAMPLES: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "proposal_generate": (
        {
            "jobTitle": "React developer for analytics dashboard",
            "jobDescription": (
                "We are a small SaaS startup. We need an experienced React developer to build an "
                "analytics dashboard for our customers. The dashboard must show charts of weekly "
                "usage, export reports to CSV and work well on mobile. Our backend is a Django "
                "REST API."
            ),
            "clientName": "Sarah",
            "skills": ["React", "TypeScript", "Recharts"],
            "tone": "friendly",
            "budget": "$2,000",
        },
        {
            "jobDescription": (
                "Looking for a copywriter to write five blog articles about sustainable fashion "
                "for our online store. Each article should be around 1,200 words and optimised "
                "for SEO."
            ),
            "skills": ["SEO copywriting"],
            "tone": "formal",
        },
    ),
    "gig_generate": (
        {
            "service": "design a modern minimalist logo",
            "category": "Graphic design",
            "targetAudience": "small businesses",
            "keywords": ["logo design", "branding", "minimalist logo"],
            "platform": "fiverr",
        },
        {"service": "WordPress speed optimization", "keywords": ["page speed", "core web vitals"]},
    ),
    "keywords_find": (
        {"topic": "logo design", "platform": "fiverr"},
        {"topic": "WordPress speed optimization"},
    ),
    "pricing_optimize": (
        {"service": "Logo design", "experienceLevel": "expert", "deliveryDays": 2},
        {"service": "WordPress website", "currentPrice": "600", "currency": "EUR"},
    ),
    "gig_health": (
        {"title": "LOGO", "description": "I make logos!!", "tags": ["logo"], "price": "5"},
        {
            "title": "I will design a modern minimalist logo for your small business",
            "description": GOOD_GIG_DESCRIPTION,
            "tags": ["logo design", "minimalist logo", "branding"],
            "price": "40",
        },
    ),
    "portfolio_generate": (
        {
            "skills": ["Python", "Django", "PostgreSQL"],
            "targetClient": "early-stage startups",
            "projects": [
                {
                    "title": "Booking platform for a yoga studio",
                    "description": (
                        "The studio managed bookings by phone and lost clients. I built a "
                        "Django booking system with PostgreSQL and Stripe payments."
                    ),
                    "outcome": "Phone bookings dropped by 70% in two months.",
                },
                {"title": "Inventory API"},
            ],
        },
        {"skills": ["Illustration", "Branding"]},
    ),
    "messages_reply": (
        {
            "message": (
                "Hi! Thanks for the quick proposal. Can you deliver the first draft of my logo "
                "by Friday? Our budget is $300. It's a bit urgent.\n\nThanks,\nAnna"
            ),
            "tone": "friendly",
            "context": "Logo for a coffee shop, three concepts agreed",
        },
        {
            "message": "Are you available for a call on Tuesday to discuss the website redesign?",
            "tone": "formal",
        },
    ),
    "reviews_analyze": (
        {
            "reviews": [
                {"rating": 5, "text": "Excellent communication and fast delivery."},
                {"rating": 5, "text": "Great quality, very professional. Highly recommended!"},
            ]
        },
        {
            "reviews": [
                {"rating": 1, "text": "Terrible. Delivery was two weeks late and he ignored me."},
                {"rating": 2, "text": "Rude and unprofessional, the code was full of bugs."},
            ]
        },
    ),
    "seo_audit": (
        {
            "title": "I will write SEO blog posts",
            "description": (
                "Do you want more traffic? I write articles that rank. Every article is "
                "researched and optimised for your audience."
            ),
            "tags": ["seo writing", "blog posts"],
            "platform": "fiverr",
        },
        {
            "title": "I will design a modern minimalist logo for your small business",
            "description": GOOD_GIG_DESCRIPTION,
            "tags": ["logo design", "minimalist logo", "branding"],
        },
    ),
    "social_ai_generate": (
        {
            "action": "generate",
            "prompt": "Write a post about pricing freelance design work for new clients",
            "platform": "bluesky",
            "tone": "confident",
        },
        {
            "action": "rewrite",
            "content": "i am really   very excited to help @anna.bsky.social ,i'm open for work!!",
            "platform": "mastodon",
            "tone": "formal",
        },
    ),
}


def words_in(value: Any) -> int:
    if isinstance(value, str):
        return len(value.split())
    if isinstance(value, dict):
        return sum(words_in(item) for item in value.values())
    if isinstance(value, list):
        return sum(words_in(item) for item in value)
    return 0


def generated(tool: str, raw: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The provider's answer to a request validated the way the API validates it."""
    serializer = TOOLS[tool].input(data=raw)
    serializer.is_valid(raise_exception=True)
    answer = provider.generate(tool, serializer.validated_data)
    validate_output(tool, answer.output)
    return answer.output, answer.tokens_used


def run(tool: str, raw: dict[str, Any]) -> dict[str, Any]:
    return generated(tool, raw)[0]


# --- Every tool ----------------------------------------------------------------------------------


def test_examples_cover_every_tool():
    assert set(EXAMPLES) == set(TOOLS)


def test_provider_is_always_ready():
    assert provider.name == "offline"
    assert provider.readiness().ready


def test_unknown_tool_is_a_provider_error():
    with pytest.raises(ProviderError):
        provider.generate("horoscope", {})


@pytest.mark.parametrize("tool", sorted(EXAMPLES))
def test_answer_fits_the_contract_and_tokens_count_its_words(tool):
    for raw in EXAMPLES[tool]:
        output, tokens = generated(tool, raw)
        assert tokens == words_in(output) > 0


@pytest.mark.parametrize("tool", sorted(EXAMPLES))
def test_different_inputs_give_different_answers(tool):
    first, second = (run(tool, raw) for raw in EXAMPLES[tool])
    assert first != second


@pytest.mark.parametrize("tool", sorted(set(EXAMPLES) - {"social_ai_generate"}))
def test_same_input_gives_the_same_answer(tool):
    raw = EXAMPLES[tool][0]
    assert run(tool, raw) == run(tool, raw)


def test_generating_a_post_again_gives_a_new_variant_on_the_same_subject():
    # Social posts are the exception: a user who generates again pays for a new text.
    raw = {**EXAMPLES["social_ai_generate"][0], "platform": "linkedin"}
    posts = {run("social_ai_generate", raw)["content"] for _ in range(12)}
    assert len(posts) > 1
    assert all("pricing freelance design work for new clients" in post.lower() for post in posts)
    # Rewriting and suggestions stay the same for the same draft.
    rewrite = EXAMPLES["social_ai_generate"][1]
    assert run("social_ai_generate", rewrite) == run("social_ai_generate", rewrite)


# --- proposal_generate ---------------------------------------------------------------------------


def test_proposal_greets_the_client_and_uses_the_brief():
    output = run("proposal_generate", EXAMPLES["proposal_generate"][0])
    content = output["content"]
    assert output["title"] == "React developer for analytics dashboard"
    assert content.startswith("Hi Sarah,")
    assert "TypeScript" in content
    assert "analytics dashboard" in content
    assert "$2,000" in content
    assert 150 <= len(content.split()) <= 350


def test_proposal_without_a_name_or_title_still_reads_as_a_proposal():
    output = run("proposal_generate", EXAMPLES["proposal_generate"][1])
    assert output["title"].startswith("Looking for a copywriter")
    assert output["content"].startswith("Hello,")
    assert "SEO copywriting" in output["content"]
    assert 150 <= len(output["content"].split()) <= 350


def test_proposal_stays_within_length_for_a_very_long_brief():
    brief = "We need a Shopify store with custom checkout and product filters. " * 150
    output = run("proposal_generate", {"jobDescription": brief, "skills": ["Shopify"] * 50})
    assert 150 <= len(output["content"].split()) <= 350


# --- gig_generate --------------------------------------------------------------------------------


def test_gig_is_built_from_the_service():
    output = run("gig_generate", EXAMPLES["gig_generate"][0])
    assert output["title"] == "I will design a modern minimalist logo for small businesses"
    assert output["tags"] == ["logo design", "branding", "minimalist logo", "design", "modern"]
    assert [p["name"] for p in output["packages"]] == ["Basic", "Standard", "Premium"]
    assert [p["price"] for p in output["packages"]] == [Decimal(40), Decimal(100), Decimal(220)]
    assert [p["deliveryDays"] for p in output["packages"]] == [2, 4, 7]
    assert 3 <= len(output["faq"]) <= 4
    assert all("design a modern minimalist logo" in qa["question"] for qa in output["faq"])
    assert "Fiverr" in output["description"]


def test_gig_title_and_tags_respect_marketplace_limits():
    raw = {"service": "logo " * 40, "keywords": ["a very long keyword phrase indeed", "Logo"]}
    output = run("gig_generate", raw)
    assert len(output["title"]) <= 80
    assert output["title"].startswith("I will ")
    assert 3 <= len(output["tags"]) <= 5
    assert all(len(tag) <= 20 and tag == tag.lower() for tag in output["tags"])
    assert len(set(output["tags"])) == len(output["tags"])


def test_generated_gig_passes_its_own_health_check():
    gig = run("gig_generate", EXAMPLES["gig_generate"][0])
    health = run(
        "gig_health",
        {
            "title": gig["title"],
            "description": gig["description"],
            "tags": gig["tags"],
            "price": gig["packages"][0]["price"],
        },
    )
    assert health["score"] == 100


# --- keywords_find -------------------------------------------------------------------------------


def test_keywords_grow_from_the_topic():
    keywords = run("keywords_find", EXAMPLES["keywords_find"][0])["keywords"]
    phrases = [k["keyword"] for k in keywords]
    relevance = [k["relevance"] for k in keywords]
    assert 8 <= len(keywords) <= 12
    assert keywords[0] == {"keyword": "logo design", "relevance": 1.0, "competition": "high"}
    assert all("logo design" in phrase for phrase in phrases)
    assert "fiverr logo design" in phrases
    assert relevance == sorted(relevance, reverse=True)
    long_tail = next(k for k in keywords if k["keyword"] == "hire logo design freelancer")
    assert long_tail["competition"] == "low"


# --- pricing_optimize ----------------------------------------------------------------------------


def price(**fields: Any) -> dict[str, Any]:
    return run("pricing_optimize", {"service": "Logo design", **fields})


def test_expert_costs_more_than_beginner():
    expert = price(experienceLevel="expert")["recommendedPrice"]
    beginner = price(experienceLevel="beginner")["recommendedPrice"]
    assert expert > beginner


def test_rush_delivery_costs_more():
    rush = price(deliveryDays=1)["recommendedPrice"]
    standard = price(deliveryDays=7)["recommendedPrice"]
    assert rush == standard * Decimal("1.25")


def test_price_range_brackets_the_recommendation():
    output = price(experienceLevel="expert", deliveryDays=2, currency="GBP")
    assert output["minPrice"] < output["recommendedPrice"] < output["maxPrice"]
    assert output["currency"] == "GBP"
    assert all(output[key].as_tuple().exponent == -2 for key in ("minPrice", "maxPrice"))
    assert 2 <= output["rationale"].count(". ") + 1 <= 4


def test_a_price_below_the_range_is_raised_to_its_floor_at_every_level():
    # The attack review's case: a $50 logo. Each level gets its own market range, and the
    # recommendation is never below the range it quotes.
    outputs = {
        level: price(service="Logo design", currentPrice="50", experienceLevel=level)
        for level in ("beginner", "intermediate", "expert")
    }
    for level, output in outputs.items():
        assert output["minPrice"] <= output["recommendedPrice"] <= output["maxPrice"], level
        assert output["recommendedPrice"] > Decimal(50)
        assert "below the bottom of that range" in output["rationale"]
    recommended = [outputs[level]["recommendedPrice"] for level in outputs]
    assert recommended == sorted(recommended)
    assert len(set(recommended)) == 3


def test_a_price_inside_the_range_moves_halfway_to_the_market():
    market = price()["recommendedPrice"]
    current = (market * Decimal("0.9")).quantize(Decimal("0.01"))
    inside = price(currentPrice=str(current))
    assert current < inside["recommendedPrice"] < market
    assert "inside the range" in inside["rationale"]
    above = price(currentPrice=str(market * 3))
    assert above["recommendedPrice"] == above["maxPrice"]


def test_a_rush_delivery_costs_more_than_a_relaxed_one():
    rush = price(service="Logo design", deliveryDays=1)["recommendedPrice"]
    relaxed = price(service="Logo design", deliveryDays=14)["recommendedPrice"]
    assert rush > relaxed


# --- gig_health ----------------------------------------------------------------------------------


def test_fixing_a_gig_raises_its_health_score():
    bad, good = (run("gig_health", raw) for raw in EXAMPLES["gig_health"])
    failing = {check["name"] for check in bad["checks"] if not check["passed"]}
    assert bad["score"] < good["score"] == 100
    assert failing == {
        "Title length",
        "Title starts with 'I will'",
        "Description length",
        "Tag count",
        "Price set",
        "No shouting",
        "Readable structure",
    }
    assert all(check["suggestion"] for check in bad["checks"] if not check["passed"])
    assert all(check["suggestion"] == "" for check in good["checks"])


def test_health_score_is_the_weight_of_passing_checks():
    raw = {**EXAMPLES["gig_health"][1], "tags": ["logo"]}
    assert run("gig_health", raw)["score"] == 85


# --- portfolio_generate --------------------------------------------------------------------------


def test_portfolio_has_a_case_study_per_project():
    output = run("portfolio_generate", EXAMPLES["portfolio_generate"][0])
    studies = output["caseStudies"]
    assert output["headline"].startswith("Python & Django specialist helping early-stage startups")
    assert [s["title"] for s in studies] == ["Booking platform for a yoga studio", "Inventory API"]
    assert studies[0]["challenge"] == "The studio managed bookings by phone and lost clients."
    assert studies[0]["result"] == "Phone bookings dropped by 70% in two months."
    assert "Django" in studies[0]["solution"]


def test_portfolio_without_projects_draws_on_the_skills():
    studies = run("portfolio_generate", EXAMPLES["portfolio_generate"][1])["caseStudies"]
    assert [s["title"] for s in studies] == [
        "Illustration for a growing business",
        "Branding for a growing business",
    ]


# --- messages_reply ------------------------------------------------------------------------------


def test_reply_answers_the_question_and_the_details():
    output = run("messages_reply", EXAMPLES["messages_reply"][0])
    reply = output["reply"]
    assert reply.startswith("Hi Anna!")
    assert "Yes, I can deliver the first draft of your logo by Friday." in reply
    assert "time-sensitive" in reply
    assert "$300" in reply
    assert "coffee shop" in reply
    assert len(output["alternatives"]) == 2
    assert all(len(alt) < len(reply) or alt != reply for alt in output["alternatives"])
    assert len(output["alternatives"][0]) < len(reply)


def test_reply_proposes_a_meeting_time():
    reply = run("messages_reply", EXAMPLES["messages_reply"][1])["reply"]
    assert reply.startswith("Hello,")
    assert "Yes, I am available for a call on Tuesday" in reply
    assert "Tuesday works for me" in reply


def reply_to(message: str, **fields: Any) -> str:
    return run("messages_reply", {"message": message, **fields})["reply"]


def test_praise_is_thanked_with_its_facts_and_no_invented_topic():
    reply = reply_to("Hi! I left you 5 stars, the logo is perfect. Thanks,\nMia")
    assert reply.startswith("Hello Mia,")
    assert "5-star review" in reply
    assert "about the" not in reply  # no topic guessed from "left"
    assert "another project" in reply


def test_a_complaint_is_apologised_for_quoting_it_and_fixed_at_no_cost():
    message = "The contact form is broken. I am really disappointed."
    reply = reply_to(message)
    assert '"The contact form is broken."' in reply
    assert "sorry" in reply.lower()
    assert "at no extra cost" in reply
    assert "Thank you for your message" not in reply


def test_a_scope_change_is_acknowledged_with_its_quote_and_timeline():
    reply = reply_to("Could you also add a dark mode to my dashboard? How much would that cost?")
    assert "Happy to add a dark mode to your dashboard." in reply
    assert "updated quote and timeline" in reply
    assert "fixed quote" in reply  # the price question
    assert reply.count("dark mode to your dashboard") == 1  # answered once, not echoed


def test_a_deadline_is_confirmed_by_its_day():
    reply = reply_to("I need the final files by Friday for the launch.")
    assert "by Friday" in reply
    assert "You asked" not in reply


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("When will the first draft be ready?", "within three working days"),
        ("What font would you recommend for the menu?", "My suggestion for the"),
    ],
)
def test_open_questions_get_an_answer_not_an_echo(message, expected):
    reply = reply_to(message)
    assert expected in reply
    assert message not in reply


# --- reviews_analyze -----------------------------------------------------------------------------


def test_praise_is_positive():
    output = run("reviews_analyze", EXAMPLES["reviews_analyze"][0])
    assert output["averageRating"] == 5.0
    assert output["sentiment"] == "positive"
    assert output["improvements"] == []
    assert "Communication (1 mention)" in output["strengths"]
    assert output["summary"].startswith("2 reviews average 5.00 out of 5")


def test_angry_one_star_reviews_are_negative():
    output = run("reviews_analyze", EXAMPLES["reviews_analyze"][1])
    assert output["averageRating"] == 1.5
    assert output["sentiment"] == "negative"
    assert output["strengths"] == []
    improvements = " ".join(output["improvements"])
    for aspect in ("Delivery time", "Communication", "Professionalism", "Quality of work"):
        assert aspect in improvements


def test_average_rating_is_the_rounded_mean():
    reviews = [{"rating": 5}, {"rating": 4}, {"rating": 4}]
    output = run("reviews_analyze", {"reviews": reviews})
    assert output["averageRating"] == 4.33
    assert output["sentiment"] == "positive"


def test_mixed_ratings_without_text_are_neutral():
    output = run("reviews_analyze", {"reviews": [{"rating": 2}, {"rating": 4}]})
    assert output["sentiment"] == "neutral"


# --- seo_audit -----------------------------------------------------------------------------------


def test_seo_audit_flags_a_short_title_and_a_missing_keyword():
    raw = {
        "title": "Minimalist logos",
        "description": "I draw clean brand marks for startups and shops. " * 20,
        "tags": ["brand marks", "startups", "shops"],
    }
    issues = run("seo_audit", raw)["issues"]
    assert {"severity": "high", "field": "title"} in [
        {"severity": i["severity"], "field": i["field"]} for i in issues
    ]
    assert any("'minimalist'" in i["message"] and "150 characters" in i["message"] for i in issues)


def test_a_well_written_listing_scores_higher():
    weak, strong = (run("seo_audit", raw) for raw in EXAMPLES["seo_audit"])
    assert weak["score"] < strong["score"] == 100
    assert strong["issues"] == []
    assert len(weak["suggestions"]) == len(weak["issues"])


def test_seo_audit_enforces_platform_limits_and_stuffing():
    raw = {
        "title": "I will design a logo " + "and more " * 10,
        "description": "logo " * 30 + "for your brand.",
        "tags": ["logo"],
        "platform": "fiverr",
    }
    messages = [i["message"] for i in run("seo_audit", raw)["issues"]]
    assert any("the platform allows 80" in m for m in messages)
    assert any("keyword stuffing" in m for m in messages)


# --- social_ai_generate --------------------------------------------------------------------------


def test_bluesky_post_fits_with_its_hashtags():
    output = run("social_ai_generate", {**EXAMPLES["social_ai_generate"][0], "length": "long"})
    post = f"{output['content']}\n\n{' '.join(output['hashtags'])}"
    assert len(output["content"]) <= 300
    assert len(post) <= 300
    assert output["title"] == "Pricing freelance design work for new clients"
    assert output["hashtags"] == ["#Pricing", "#Freelance"]
    assert output["cta"]


@pytest.mark.parametrize(
    ("platform", "limit"),
    [("bluesky", 300), ("twitter", 280), ("mastodon", 500), ("instagram", 2200)],
)
def test_an_announcement_is_about_the_prompt_within_the_platform_limit(platform, limit):
    raw = {
        "action": "generate",
        "prompt": "Write a post announcing my new portfolio website for restaurant branding",
        "platform": platform,
        "tone": "friendly",
        "length": "long",
    }
    for _ in range(5):
        output = run("social_ai_generate", raw)
        post = f"{output['content']}\n\n{' '.join(output['hashtags'])}"
        assert len(post) <= limit
        assert "my new portfolio website for restaurant branding" in output["content"]
        assert output["content"].rstrip().endswith("?")  # invites replies
        assert "#Announcing" not in output["hashtags"]
        assert "How do you handle" not in output["content"]


def test_linkedin_posts_are_paragraphs_and_devto_posts_are_markdown():
    raw = {"action": "generate", "prompt": "Write a post about pricing logo design"}
    linkedin = run("social_ai_generate", {**raw, "platform": "linkedin"})["content"]
    assert linkedin.count("\n\n") >= 2
    devto = run("social_ai_generate", {**raw, "platform": "devto"})["content"]
    assert "\n## 1. " in devto


def test_rewrite_tightens_and_keeps_mentions():
    output = run("social_ai_generate", EXAMPLES["social_ai_generate"][1])
    assert output["content"] == "I am excited to help @anna.bsky.social, I am open for work!"
    assert output["mentions"] == ["@anna.bsky.social"]


def test_suggest_lists_concrete_improvements():
    draft = "I have been working as a freelance designer for years and pricing is hard for me"
    output = run("social_ai_generate", {"action": "suggest", "content": draft})
    lines = output["content"].splitlines()
    assert lines[0].startswith("1. ")
    assert "End with a question to invite replies." in output["content"]
    assert lines[-1].startswith(f"{len(lines)}. Tightened draft: I have been working")
    assert all(tag.startswith("#") for tag in output["hashtags"])
    assert len(output["hashtags"]) <= 5
