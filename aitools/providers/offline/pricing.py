"""pricing_optimize: a service's market price range and a recommended price inside it."""

from decimal import Decimal

from aitools.providers.offline import data as d
from aitools.providers.offline.text import Data, capitalize, clip_words, money, stem, tokens

MAX_MONEY = Decimal("79999999.99")  # keeps maxPrice (x1.25) inside the contract's 10 digits


def write(data: Data) -> Data:
    """The market range for this experience level, service and delivery time; the
    recommendation always lies inside it (a price below the floor is raised to the floor, one
    above the ceiling lowered to it, one inside moved halfway toward the market price)."""
    level = data.get("experienceLevel") or d.DEFAULT_LEVEL
    currency = data.get("currency") or "USD"
    rate = d.HOURLY_RATES[level] * d.CURRENCY_PER_USD.get(currency, Decimal(1))
    hours = _service_hours(data["service"])
    factor, delivery_reason = _delivery_factor(data.get("deliveryDays"))
    market = money(min(max(rate * hours * factor, Decimal(1)), MAX_MONEY))
    low, high = money(market * Decimal("0.85")), money(market * Decimal("1.25"))
    # Decimal(str(...)) also accepts a float from a caller that skipped the input serializer.
    current = Decimal(str(data["currentPrice"])) if data.get("currentPrice") else None
    if current is None:
        recommended = market
    elif current < low:
        recommended = low
    elif current > high:
        recommended = high
    else:
        recommended = money(current + (market - current) / 2)
    sentences = [
        f"{capitalize(level)} freelancers charge about {money(rate)} {currency} an hour, and "
        f"'{clip_words(data['service'], 8)}' typically takes {hours} hours, so the market "
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
    words = {stem(word) for word in tokens(service)}
    for names, hours in d.SERVICE_HOURS:
        if words & {stem(name) for name in names}:
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
