"""Realistic request bodies for every AI tool, and what each costs."""

BODIES = {
    "proposal_generate": (
        "/api/proposal/generate",
        {
            "jobDescription": "We need a Django REST API for our booking app with Stripe payments.",
            "jobTitle": "Booking API",
            "clientName": "Maria",
            "skills": ["Django", "PostgreSQL"],
            "tone": "friendly",
            "budget": "$2,000",
        },
    ),
    "gig_generate": (
        "/api/gig/generate",
        {"service": "Django REST API development", "keywords": ["django", "api"]},
    ),
    "keywords_find": ("/api/keywords/find", {"topic": "logo design", "platform": "fiverr"}),
    "pricing_optimize": (
        "/api/pricing/optimize",
        {"service": "Logo design", "experienceLevel": "expert", "deliveryDays": 2},
    ),
    "gig_health": (
        "/api/gig/health",
        {"title": "I will design a logo", "description": "Logos.", "tags": ["logo"], "price": 5},
    ),
    "portfolio_generate": (
        "/api/portfolio/generate",
        {"skills": ["Python", "Data"], "projects": [{"title": "Churn model", "outcome": "-12%"}]},
    ),
    "messages_reply": ("/api/messages/reply", {"message": "Can you start tomorrow?"}),
    "reviews_analyze": (
        "/api/reviews/analyze",
        {"reviews": [{"rating": 5, "text": "Great work, fast delivery"}, {"rating": 4}]},
    ),
    "seo_audit": (
        "/api/seo/audit",
        {"title": "Logo", "description": "I design logos for startups.", "tags": ["logo"]},
    ),
    "social_ai_generate": (
        "/api/social/ai/generate",
        {"action": "generate", "prompt": "Our new booking feature", "platform": "bluesky"},
    ),
}
COSTS = {
    "proposal_generate": 1,
    "gig_generate": 2,
    "keywords_find": 1,
    "pricing_optimize": 1,
    "gig_health": 1,
    "portfolio_generate": 2,
    "messages_reply": 1,
    "reviews_analyze": 1,
    "seo_audit": 1,
    "social_ai_generate": 1,
}
