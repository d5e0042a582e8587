"""Word lists, phrasings and rate tables the offline provider composes its answers from."""

from decimal import Decimal
from typing import Final, NamedTuple


def wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Words that carry no topic of their own: they never become key terms, tags or hashtags.
STOPWORDS: Final = wordset("""
    a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each etc few for from further get gets getting give had
    hadn't has hasn't have haven't having he her here hers herself him himself his how i i'd
    i'll i'm i've if in into is isn't it it's its itself just let's like looking make me more
    most much must my myself need needed needs new no nor not now of off on once one only or
    other our ours ourselves out over own please really same she should shouldn't so some such
    than that that's the their theirs them themselves then there there's these they they're
    this those through to too under until up us use using very via want wanted wants was
    wasn't we we'll we're we've well were weren't what what's when where which while who
    whom why will with won't would wouldn't yes yet you you'd you'll you're you've your yours
    yourself yourselves able ask based currently every going great help hi hello hey kind
    know lot many may might per right someone something still sure take thanks thank things
    thing way work working would year years job project looking ideally around within others
    everyone anyone everybody learned learn matter matters think thought
    """)

# Content words that still name no deliverable (roles, praise, verbs of doing, days): they split
# key phrases, so "experienced React developer to build a dashboard" yields "React", "dashboard".
GENERIC_WORDS: Final = wordset(
    """small large big experienced senior junior strong solid skilled talented reliable quick
    fast good best top excellent amazing awesome developer developers designer designers
    freelancer freelancers expert experts specialist specialists startup company team customer
    customers client clients person people plus build create develop show export implement
    deliver provide improve add handle find hire done start finish announce share sharing
    excited happy proud write post first second two three four five six seven eight nine ten
    today tomorrow week weeks month months day days monday tuesday wednesday thursday friday
    saturday sunday budget price urgent asap bit deadline call meeting quickly soon opening
    open launch launching thrilled glad slots spots"""
)

# Tone names a user may type, folded onto the three styles we write in.
TONE_ALIASES: Final[dict[str, str]] = {
    "formal": "formal",
    "professional": "formal",
    "polite": "formal",
    "business": "formal",
    "friendly": "friendly",
    "casual": "friendly",
    "warm": "friendly",
    "enthusiastic": "friendly",
    "conversational": "friendly",
    "confident": "confident",
    "bold": "confident",
    "persuasive": "confident",
    "assertive": "confident",
    "direct": "confident",
}
DEFAULT_TONE: Final = "formal"

# A client's own words retold to them: "we need" becomes "you need".
SECOND_PERSON: Final[dict[str, str]] = {
    "i'm": "you're",
    "i am": "you are",
    "i was": "you were",
    "we're": "you're",
    "we are": "you are",
    "we were": "you were",
    "we": "you",
    "i": "you",
    "our": "your",
    "ours": "yours",
    "my": "your",
}

# Words that mark a sentence of a brief as a requirement rather than background.
NEED_WORDS: Final = wordset(
    """need needs needed must should require requires required looking want wants build create
    develop design deliver plus experience responsible expect"""
)

PROPOSAL_TONES: Final[dict[str, dict[str, str]]] = {
    "formal": {
        "greeting": "Dear {name},",
        "greeting_anonymous": "Hello,",
        "opening": (
            "Thank you for the opportunity to apply for your {topic} project. I have read "
            "your requirements carefully and would welcome the chance to help you deliver it."
        ),
        "closing": (
            "Could you tell me which part of the {focus} matters most to you right now? "
            "I would be glad to discuss the details at your convenience."
        ),
        "signoff": "Kind regards,",
    },
    "friendly": {
        "greeting": "Hi {name},",
        "greeting_anonymous": "Hello,",
        "opening": (
            "Thanks for posting this! Your {topic} project caught my eye right away, and it "
            "is exactly the kind of work I enjoy doing."
        ),
        "closing": (
            "Which part of the {focus} would you like to tackle first? Happy to jump on a quick "
            "chat whenever suits you."
        ),
        "signoff": "Cheers,",
    },
    "confident": {
        "greeting": "Hi {name},",
        "greeting_anonymous": "Hello,",
        "opening": (
            "Your {topic} project is a strong match for my experience, and I can start "
            "delivering visible results in the first days."
        ),
        "closing": (
            "Tell me which part of the {focus} is most urgent and I will put it first. "
            "I am ready to start as soon as you are."
        ),
        "signoff": "Looking forward to working together,",
    },
}

MESSAGE_TONES: Final[dict[str, dict[str, str]]] = {
    "formal": {
        "greeting": "Hello{name},",
        "opening": "Thank you for your message about the {topic}.",
        "thanks": "Thank you for getting back to me about the {topic}.",
        "fallback": "I have read it carefully and will come back to you with clear next steps.",
        "closing": "I look forward to your reply.",
    },
    "friendly": {
        "greeting": "Hi{name}!",
        "opening": "Thanks so much for reaching out about the {topic}.",
        "thanks": "You're welcome, and thanks for getting back to me about the {topic}!",
        "fallback": "Got it, and I'll get back to you shortly with the next steps.",
        "closing": "Talk soon!",
    },
    "confident": {
        "greeting": "Hi{name},",
        "opening": "Thanks for the message about the {topic}.",
        "thanks": "Glad to hear from you about the {topic}.",
        "fallback": "I am on it and will send you the next steps shortly.",
        "closing": "Looking forward to moving ahead.",
    },
}

# Words that show what an incoming client message is about.
URGENCY_WORDS: Final = wordset(
    "urgent urgently asap immediately emergency rush quickly today tonight deadline hurry"
)
THANKS_WORDS: Final = wordset("thanks thank thx appreciate appreciated grateful")
PRICE_WORDS: Final = wordset(
    "price prices pricing budget cost costs quote rate rates fee fees pay paid charge"
)
# What a message is: a complaint, praise, a change of scope (besides questions, prices, days).
COMPLAINT_WORDS: Final = wordset(
    """disappointed unhappy unacceptable frustrated frustrating wrong broken bug bugs issue
    issues problem problems error errors delayed missing refund poor worse worst annoyed
    mistake mistakes"""
)
COMPLAINT_PHRASES: Final = (
    "not what",
    "doesn't work",
    "does not work",
    "not working",
    "still waiting",
    "haven't received",
    "have not received",
    "not happy",
    "too late",
)
PRAISE_WORDS: Final = wordset(
    """love loved amazing excellent fantastic perfect awesome impressed brilliant wonderful
    outstanding superb stars star delighted thrilled beautiful"""
)
# A day alone is usually a deadline; it is a meeting request only next to one of these.
SCHEDULE_WORDS: Final = wordset("call meeting meet schedule available availability zoom chat")
WEEKDAYS: Final = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "tomorrow",
)

# A question's opening words and the first-person answer they invite.
YES_NO_OPENERS: Final[dict[str, str]] = {
    "can you": "Yes, I can",
    "could you": "Yes, I can",
    "are you able to": "Yes, I am able to",
    "are you": "Yes, I am",
    "do you": "Yes, I",
    "have you": "Yes, I have",
    "would you": "I would be glad to",
    "will you": "Yes, I will",
}
PRONOUN_SWAPS: Final[dict[str, str]] = {
    "my": "your",
    "me": "you",
    "our": "your",
    "us": "you",
    "your": "my",
    "yours": "mine",
    "i": "you",
    "we": "you",
}

# --- Reviews -------------------------------------------------------------------------------------

POSITIVE_WORDS: Final = wordset(
    """excellent great amazing awesome good fantastic outstanding perfect wonderful superb
    professional responsive fast quick helpful friendly recommend recommended love loved
    happy pleased satisfied brilliant clear smooth reliable talented creative prompt polite
    patient thorough efficient impressed exceeded best nice quality affordable worth easy
    detailed punctual timely"""
)
NEGATIVE_WORDS: Final = wordset(
    """bad poor terrible awful horrible slow late delay delayed delays rude unprofessional
    unresponsive disappointing disappointed worst never ignored ignoring sloppy buggy broken
    expensive overpriced waste wasted useless mediocre confusing messy unhappy frustrating
    frustrated missed incomplete careless scam refund angry wrong errors mistakes"""
)
NEGATIONS: Final = wordset(
    "not no never didn't wasn't isn't don't doesn't hardly barely couldn't won't"
)

# Aspect of the work -> word prefixes that name it in a review.
REVIEW_ASPECTS: Final[dict[str, tuple[str, ...]]] = {
    "communication": (
        "communicat",
        "respons",
        "unresponsive",
        "repl",
        "update",
        "listen",
        "contact",
        "ignor",
    ),
    "quality of work": ("quality", "result", "output", "design", "code", "bug", "error"),
    "delivery time": (
        "fast",
        "quick",
        "deliver",
        "deadline",
        "time",
        "late",
        "slow",
        "delay",
        "prompt",
        "punctual",
    ),
    "professionalism": ("professional", "unprofessional", "rude", "polite", "reliab", "attitude"),
    "value for money": ("price", "value", "worth", "afford", "expensive", "overpriced", "cheap"),
    "attention to detail": ("detail", "thorough", "careless", "sloppy", "accura", "mistake"),
    "revisions and flexibility": ("revision", "change", "flexib", "adjust", "feedback"),
}

# A service that starts with one of these already reads as "I will <service>".
SERVICE_VERBS: Final = wordset(
    """design create write build develop edit make do provide translate manage set setup fix
    optimize record produce draw illustrate proofread code craft transcribe teach coach audit
    analyze analyse convert redesign program help render animate model research test review
    install migrate automate integrate compose mix master shoot photograph plan clean"""
)

# --- Gigs, keywords, pricing ---------------------------------------------------------------------


class GigRate(NamedTuple):
    words: tuple[str, ...]  # any of these in the category, service or keywords selects the row
    prices: tuple[int, int, int]  # Basic, Standard, Premium in USD
    days: tuple[int, int, int]


# The first matching row wins, so specific kinds of work come before broad ones.
GIG_RATES: Final = (
    GigRate(("app", "mobile", "software", "saas", "backend", "api"), (150, 400, 900), (5, 10, 21)),
    GigRate(
        ("web", "website", "wordpress", "shopify", "developer", "code"), (90, 250, 600), (4, 7, 14)
    ),
    GigRate(("video", "animation", "motion", "youtube"), (50, 130, 300), (3, 5, 10)),
    GigRate(("marketing", "seo", "ads", "social", "campaign"), (60, 150, 350), (3, 7, 14)),
    GigRate(
        ("logo", "design", "graphic", "illustration", "branding", "ui", "ux"),
        (40, 100, 220),
        (2, 4, 7),
    ),
    GigRate(
        ("writing", "article", "blog", "copywriting", "content", "resume"), (25, 60, 130), (2, 4, 7)
    ),
    GigRate(("translation", "transcription", "proofreading", "editing"), (20, 50, 110), (1, 3, 5)),
    GigRate(("data", "excel", "analysis", "analytics", "research"), (40, 110, 250), (2, 5, 10)),
)
GIG_DEFAULT_RATE: Final = GigRate((), (30, 75, 160), (3, 5, 10))

KEYWORD_PATTERNS: Final[tuple[tuple[str, int], ...]] = (
    # (pattern, distance from the bare topic: each step lowers the relevance)
    ("{topic}", 0),
    ("{topic} services", 1),
    ("professional {topic}", 1),
    ("{topic} expert", 1),
    ("best {topic}", 1),
    ("hire {topic} freelancer", 2),
    ("affordable {topic}", 2),
    ("{topic} for beginners", 2),
    ("{topic} pricing", 2),
    ("{topic} for small business", 3),
    ("how to find a {topic} expert", 4),
)
PLATFORM_KEYWORD_PATTERNS: Final[tuple[tuple[str, int], ...]] = (
    ("{platform} {topic}", 1),
    ("{topic} gig on {platform}", 2),
    ("top rated {topic} {platform}", 3),
)

# Typical USD hourly rates by experience; the market bands most freelance platforms show.
HOURLY_RATES: Final[dict[str, Decimal]] = {
    "beginner": Decimal("25"),
    "intermediate": Decimal("50"),
    "expert": Decimal("95"),
}
DEFAULT_LEVEL: Final = "intermediate"

# Service words -> hours a typical order of that kind takes.
SERVICE_HOURS: Final[tuple[tuple[tuple[str, ...], int], ...]] = (
    (("app", "mobile", "saas", "platform", "software", "backend"), 60),
    (("website", "wordpress", "shopify", "ecommerce", "dashboard", "web"), 30),
    (("landing", "audit", "seo", "campaign", "strategy", "video", "animation"), 10),
    (("article", "blog", "copywriting", "resume", "translation", "presentation"), 6),
    (("logo", "icon", "banner", "thumbnail", "proofreading", "voiceover", "edit"), 4),
)
DEFAULT_SERVICE_HOURS: Final = 8

# Delivery days (up to and including) -> price factor and the reason given to the user.
DELIVERY_FACTORS: Final[tuple[tuple[int, Decimal, str], ...]] = (
    (2, Decimal("1.25"), "a rush delivery adds 25%"),
    (4, Decimal("1.10"), "a tight delivery adds 10%"),
    (13, Decimal("1.00"), "a standard delivery keeps the base price"),
    (365, Decimal("0.95"), "a relaxed deadline allows a 5% discount"),
)

# Rough units per USD, so the table's USD rates land in a sensible range in other currencies.
CURRENCY_PER_USD: Final[dict[str, Decimal]] = {
    "USD": Decimal("1"),
    "EUR": Decimal("0.92"),
    "GBP": Decimal("0.79"),
    "CAD": Decimal("1.36"),
    "AUD": Decimal("1.52"),
    "INR": Decimal("83"),
    "JPY": Decimal("150"),
    "BRL": Decimal("5"),
    "PKR": Decimal("280"),
    "NGN": Decimal("1500"),
}

# --- Listing audits ------------------------------------------------------------------------------

# Hard limits a marketplace enforces; anything else falls back to the general guidance.
PLATFORM_LISTING_LIMITS: Final[dict[str, dict[str, int]]] = {
    "fiverr": {"title_max": 80, "tags_max": 5, "description_max": 1200},
    "etsy": {"title_max": 140, "tags_max": 13},
    "devto": {"title_max": 128, "tags_max": 4},
}
TITLE_IDEAL: Final = (40, 70)
SEO_PENALTY: Final[dict[str, int]] = {"high": 20, "medium": 12, "low": 5}

# --- Social posts --------------------------------------------------------------------------------

# Characters a post may hold, and how many hashtags read naturally there.
SOCIAL_LIMITS: Final[dict[str, int]] = {
    "bluesky": 300,
    "twitter": 280,
    "x": 280,
    "mastodon": 500,
    "threads": 500,
    "instagram": 2200,
    "linkedin": 3000,
    "facebook": 5000,
    "devto": 10000,
}
DEFAULT_SOCIAL_LIMIT: Final = 1000
SOCIAL_HASHTAGS: Final[dict[str, int]] = {
    "bluesky": 2,
    "twitter": 2,
    "x": 2,
    "mastodon": 3,
    "linkedin": 3,
    "instagram": 5,
}
DEFAULT_HASHTAGS: Final = 3
# What a post is about decides what it says. Words that tell the kind of a prompt:
POST_KINDS: Final[tuple[tuple[str, frozenset[str]], ...]] = (
    (
        "lesson",
        wordset(
            "tips tip how lessons lesson mistakes mistake guide learned learn avoid pricing ways"
        ),
    ),
    (
        "announcement",
        wordset("announce announcing launch launching launched release releasing introducing"),
    ),
    (
        "milestone",
        wordset("finished completed delivered milestone anniversary celebrating celebrate reached"),
    ),
    ("offer", wordset("discount offer deal booking slots hire hiring sale promo spots")),
)
DEFAULT_POST_KIND: Final = "lesson"

# Post skeletons per kind, several each: every call picks one at random (a regeneration is a
# new text, worth its credit). {topic} is the prompt's subject, in the author's words.
POST_HOOKS: Final[dict[str, tuple[str, ...]]] = {
    "announcement": (
        "Big news: {topic}.",
        "It's official: {topic}.",
        "Something I have been working on for weeks: {topic}.",
        "Today is the day: {topic}.",
    ),
    "milestone": (
        "A small milestone worth sharing: {topic}.",
        "Looking back on this one: {topic}.",
        "Proud of this: {topic}.",
    ),
    "offer": (
        "For the next few weeks: {topic}.",
        "If you have been waiting for the right moment: {topic}.",
        "Quick heads-up for clients: {topic}.",
    ),
    "lesson": (
        "What I wish I had known earlier about {topic}.",
        "{Topic}: three things that made the difference for me.",
        "Most freelancers get {topic} wrong at first. I did too.",
        "A practical take on {topic}, from real client work.",
    ),
}
POST_BODIES: Final[dict[str, tuple[tuple[str, ...], ...]]] = {
    "announcement": (
        (
            "Here is why it matters to the people I work with, and what changes for them.",
            "It took more iterations than I expected, and every one of them made it better.",
            "I would love your honest feedback on it.",
        ),
        (
            "It started as a side note in a client call and grew into something I am proud of.",
            "If it can help you or someone you know, the details are in my profile.",
            "Tell me what you would add next.",
        ),
    ),
    "milestone": (
        (
            "None of it would have happened without clients who trusted the process.",
            "The biggest lesson: clear scope and regular updates beat heroic all-nighters.",
            "Thank you to everyone who was part of it.",
        ),
        (
            "It was not a straight line, and the detours taught me the most.",
            "What I am taking into the next one: ask more questions at the start.",
            "On to the next chapter.",
        ),
    ),
    "offer": (
        (
            "It is for clients who want the work done properly, with a clear scope and dates.",
            "Spots are limited so each project gets real attention.",
            "Send me a message if it fits what you need.",
        ),
        (
            "No long contracts, no surprises: a fixed quote once the brief is clear.",
            "I take a few projects at a time so each one gets my full focus.",
            "Reply or message me to book a spot.",
        ),
    ),
    "lesson": (
        (
            "Start with the outcome the client is paying for, not the hours it takes.",
            "Write it down: a one-page scope prevents most of the disagreements later.",
            "Review it after every project and keep what worked.",
        ),
        (
            "Ask one more question than feels comfortable before you quote.",
            "Show the client a small first version early; feedback is cheapest then.",
            "Say no to work that does not fit, so you can say a great yes to work that does.",
        ),
    ),
}
POST_QUESTIONS: Final[dict[str, tuple[str, ...]]] = {
    "announcement": ("What do you think?", "What would you like to see next?"),
    "milestone": ("What milestone are you working toward?", "What did your last one teach you?"),
    "offer": ("Know someone who needs this?", "Questions? Ask away."),
    "lesson": ("How do you handle it?", "What would you add?", "What worked for you?"),
}
BODY_SENTENCES: Final[dict[str, int]] = {"short": 1, "medium": 2, "long": 3}
SOCIAL_CTAS: Final[dict[str, str]] = {
    "linkedin": "Share your experience in the comments and follow for more.",
    "bluesky": "Reply with your take.",
    "twitter": "Reply with your take.",
    "x": "Reply with your take.",
    "mastodon": "Boost if this helps, and tell me what you think.",
    "instagram": "Save this post and tell me your thoughts below.",
    "devto": "Let me know in the comments how you handle this.",
}
DEFAULT_CTA: Final = "Message me if you want help with this."

# Wordy phrases and their tighter form, applied when rewriting a post.
TIGHTER_PHRASES: Final[tuple[tuple[str, str], ...]] = (
    (r"\bin order to\b", "to"),
    (r"\ba lot of\b", "many"),
    (r"\bat this point in time\b", "now"),
    (r"\bdue to the fact that\b", "because"),
    (r"\bin the event that\b", "if"),
    (r"\bfor the purpose of\b", "for"),
    (r"\bis able to\b", "can"),
    (r"\b(really|very|just|basically|actually|literally|totally)\s+", ""),
)
# Softeners a confident rewrite drops.
HEDGES: Final = r"\b(?:I think|I guess|I feel like|maybe|perhaps|kind of|sort of|a bit)\s+"
CONTRACTIONS: Final[dict[str, str]] = {
    "i'm": "I am",
    "can't": "cannot",
    "won't": "will not",
    "don't": "do not",
    "doesn't": "does not",
    "isn't": "is not",
    "it's": "it is",
    "we're": "we are",
    "you're": "you are",
    "i've": "I have",
    "let's": "let us",
}
