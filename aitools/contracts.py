"""The ten AI tools' request and response shapes (the contract's table), as serializers.

Inputs are validated before any credit is spent (a key no field declares is refused:
core.api.serializers); outputs are validated whichever provider wrote them, so a model's
answer reaches a client only in the documented shape.
"""

from typing import Any

from rest_framework import serializers

from core.api.serializers import BodySerializer

MAX_TEXT = 10_000  # characters in any one input string
MAX_SHORT = 200
MAX_ITEMS = 50  # entries in any one input list

Serializer = serializers.Serializer[Any]
Input = BodySerializer  # a request: keys it does not declare are refused


def _text(*, required: bool = True, max_length: int = MAX_TEXT, **kwargs: Any) -> Any:
    return serializers.CharField(
        required=required, max_length=max_length, allow_blank=not required, **kwargs
    )


def _strings(*, required: bool = False, min_length: int | None = None) -> Any:
    return serializers.ListField(
        child=serializers.CharField(max_length=MAX_SHORT),
        required=required,
        max_length=MAX_ITEMS,
        min_length=min_length,
        default=list if not required else serializers.empty,
    )


# --- Inputs ------------------------------------------------------------------------------------


class ProposalInput(Input):
    jobDescription = _text(min_length=20)
    jobTitle = _text(required=False, max_length=MAX_SHORT)
    clientName = _text(required=False, max_length=MAX_SHORT)
    skills = _strings()
    tone = _text(required=False, max_length=50)
    budget = _text(required=False, max_length=100)


class GigInput(Input):
    service = _text(max_length=MAX_SHORT)
    category = _text(required=False, max_length=100)
    targetAudience = _text(required=False, max_length=MAX_SHORT)
    keywords = _strings()
    platform = _text(required=False, max_length=50)


class KeywordsInput(Input):
    topic = _text(max_length=MAX_SHORT)
    platform = _text(required=False, max_length=50)


class PricingInput(Input):
    service = _text(max_length=MAX_SHORT)
    currentPrice = serializers.DecimalField(
        max_digits=10, decimal_places=2, min_value=0, required=False, coerce_to_string=False
    )
    experienceLevel = serializers.ChoiceField(
        choices=["beginner", "intermediate", "expert"], required=False
    )
    deliveryDays = serializers.IntegerField(min_value=1, max_value=365, required=False)
    currency = serializers.RegexField(r"^[A-Z]{3}$", required=False, default="USD")


class GigHealthInput(Input):
    title = _text(max_length=MAX_SHORT)
    description = _text()
    tags = _strings()
    price = serializers.DecimalField(
        max_digits=10, decimal_places=2, min_value=0, required=False, coerce_to_string=False
    )


class PortfolioProject(Input):
    title = _text(max_length=MAX_SHORT)
    description = _text(required=False, max_length=2000)
    outcome = _text(required=False, max_length=1000)


class PortfolioInput(Input):
    skills = _strings(required=True, min_length=1)
    projects = serializers.ListField(
        child=PortfolioProject(), required=False, max_length=20, default=list
    )
    targetClient = _text(required=False, max_length=MAX_SHORT)


class MessageReplyInput(Input):
    message = _text()
    context = _text(required=False)
    tone = _text(required=False, max_length=50)


class Review(Input):
    rating = serializers.IntegerField(min_value=1, max_value=5)
    text = _text(required=False, max_length=5000)


class ReviewsInput(Input):
    reviews = serializers.ListField(child=Review(), min_length=1, max_length=MAX_ITEMS)


class SeoAuditInput(Input):
    title = _text(max_length=MAX_SHORT)
    description = _text()
    tags = _strings()
    platform = _text(required=False, max_length=50)


class SocialGenerateInput(Input):
    action = serializers.ChoiceField(choices=["generate", "rewrite", "suggest"])
    prompt = _text(required=False)
    content = _text(required=False)
    platform = _text(required=False, max_length=50)
    tone = _text(required=False, max_length=50)
    length = _text(required=False, max_length=20)

    def schema_constraints(self) -> dict[str, Any]:
        # Patterns, not enums: drf-spectacular's enum hook would swap an enum of `action` for
        # the field's whole enum.
        return {
            "oneOf": [
                {
                    "properties": {
                        "action": {"pattern": "^generate$"},
                        "prompt": {"pattern": r"\S"},
                    },
                    "required": ["prompt"],
                },
                {
                    "properties": {
                        "action": {"pattern": "^(rewrite|suggest)$"},
                        "content": {"pattern": r"\S"},
                    },
                    "required": ["content"],
                },
            ]
        }

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["action"] == "generate" and not attrs.get("prompt"):
            raise serializers.ValidationError({"prompt": ["Required for action generate."]})
        if attrs["action"] in ("rewrite", "suggest") and not attrs.get("content"):
            raise serializers.ValidationError(
                {"content": [f"Required for action {attrs['action']}."]}
            )
        return attrs


# --- Outputs -----------------------------------------------------------------------------------


class ProposalOutput(Serializer):
    title = serializers.CharField(max_length=200)
    content = serializers.CharField()


class GigPackage(Serializer):
    name = serializers.CharField(max_length=50)
    price = serializers.DecimalField(max_digits=10, decimal_places=2, coerce_to_string=False)
    deliveryDays = serializers.IntegerField(min_value=1)
    features = serializers.ListField(child=serializers.CharField())


class GigFaq(Serializer):
    question = serializers.CharField()
    answer = serializers.CharField()


class GigOutput(Serializer):
    title = serializers.CharField(max_length=200)
    description = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField(max_length=50))
    packages = serializers.ListField(child=GigPackage(), min_length=1)
    faq = serializers.ListField(child=GigFaq())


class Keyword(Serializer):
    keyword = serializers.CharField()
    relevance = serializers.FloatField(min_value=0, max_value=1)
    competition = serializers.ChoiceField(choices=["low", "medium", "high"])


class KeywordsOutput(Serializer):
    keywords = serializers.ListField(child=Keyword(), min_length=1)


class PricingOutput(Serializer):
    recommendedPrice = serializers.DecimalField(
        max_digits=10, decimal_places=2, min_value=0, coerce_to_string=False
    )
    minPrice = serializers.DecimalField(
        max_digits=10, decimal_places=2, min_value=0, coerce_to_string=False
    )
    maxPrice = serializers.DecimalField(
        max_digits=10, decimal_places=2, min_value=0, coerce_to_string=False
    )
    currency = serializers.CharField(max_length=3)
    rationale = serializers.CharField()


class HealthCheck(Serializer):
    name = serializers.CharField()
    passed = serializers.BooleanField()
    suggestion = serializers.CharField(allow_blank=True)


class GigHealthOutput(Serializer):
    score = serializers.IntegerField(min_value=0, max_value=100)
    checks = serializers.ListField(child=HealthCheck(), min_length=1)


class CaseStudy(Serializer):
    title = serializers.CharField()
    challenge = serializers.CharField()
    solution = serializers.CharField()
    result = serializers.CharField()


class PortfolioOutput(Serializer):
    headline = serializers.CharField()
    summary = serializers.CharField()
    caseStudies = serializers.ListField(child=CaseStudy())


class MessageReplyOutput(Serializer):
    reply = serializers.CharField()
    alternatives = serializers.ListField(child=serializers.CharField())


class ReviewsOutput(Serializer):
    averageRating = serializers.FloatField(min_value=1, max_value=5)
    sentiment = serializers.ChoiceField(choices=["positive", "neutral", "negative"])
    strengths = serializers.ListField(child=serializers.CharField())
    improvements = serializers.ListField(child=serializers.CharField())
    summary = serializers.CharField()


class SeoIssue(Serializer):
    severity = serializers.ChoiceField(choices=["low", "medium", "high"])
    field = serializers.CharField()
    message = serializers.CharField()


class SeoAuditOutput(Serializer):
    score = serializers.IntegerField(min_value=0, max_value=100)
    issues = serializers.ListField(child=SeoIssue())
    suggestions = serializers.ListField(child=serializers.CharField())


class SocialGenerateOutput(Serializer):
    title = serializers.CharField(allow_blank=True)
    content = serializers.CharField()
    hashtags = serializers.ListField(child=serializers.CharField())
    mentions = serializers.ListField(child=serializers.CharField())
    cta = serializers.CharField(allow_blank=True)


def sketch(field: Any) -> Any:
    """A JSON sketch of a serializer's shape, for the model to fill in."""
    if isinstance(field, serializers.ListSerializer):
        return [sketch(field.child)]
    if isinstance(field, serializers.Serializer):
        return {name: sketch(child) for name, child in field.fields.items()}
    if isinstance(field, serializers.ListField):
        return [sketch(field.child)]
    if isinstance(field, serializers.ChoiceField):
        return " | ".join(str(choice) for choice in field.choices)
    if isinstance(field, serializers.BooleanField):
        return "boolean"
    if isinstance(field, serializers.IntegerField):
        low, high = field.min_value, field.max_value
        return f"integer {low}..{high}" if low is not None and high is not None else "integer"
    if isinstance(field, serializers.FloatField | serializers.DecimalField):
        low = getattr(field, "min_value", None)
        high = getattr(field, "max_value", None)
        return f"number {low}..{high}" if low is not None and high is not None else "number"
    return "string"
