"""How long a platform counts a text (`limits.countsBy`, social.md sections 1 and 13): the one
place validation, preview and `limits` take their count from.

- `characters`: code points; `graphemes`: user-perceived characters; `bytes`: UTF-8 bytes.
- `weighted`: X's count, as its counting library (twitter-text, configuration v3) defines it,
  on the NFC-normalized text: each URL (with a scheme, or a bare domain) weighs 23 whatever
  its length; an emoji sequence (with its joiners, modifiers and variation selectors) weighs 2
  in all; any other code point weighs 1 in U+0000-U+10FF, U+2000-U+200D, U+2010-U+201F and
  U+2032-U+2037 (Latin, Greek, Cyrillic, Hebrew, Arabic, general punctuation), 2 elsewhere
  (CJK, Hangul, most symbols). Where we differ from the library (docs/social.md, "X"): a bare
  domain counts as a URL when its top-level domain is a common generic one or a two-letter
  country code (the library knows every registered one); an emoji is a sequence the Unicode
  grapheme rules join around an emoji (the library uses Twemoji's list).
"""

import unicodedata

import regex

COUNTS_BY = ("characters", "graphemes", "weighted", "bytes")

WEIGHTED_URL = 23  # twitter-text's transformedURLLength
# (first, last) code points that weigh 1; every other one weighs 2 (twitter-text v3 ranges).
LIGHT_RANGES = ((0x0000, 0x10FF), (0x2000, 0x200D), (0x2010, 0x201F), (0x2032, 0x2037))

# Generic top-level domains a bare domain (no scheme) is recognised by: the common ones.
GENERIC_TLDS = frozenset({
    "com", "net", "org", "edu", "gov", "mil", "int", "info", "biz", "name", "pro", "mobi",
    "asia", "tel", "travel", "jobs", "coop", "aero", "museum", "io", "ai", "app", "dev",
    "page", "blog", "shop", "store", "online", "site", "tech", "xyz", "club", "top", "live",
    "news", "cloud", "design", "agency", "studio", "media", "email", "link", "world", "space",
    "website", "digital", "today", "life", "social", "network", "center", "company",
    "solutions", "services", "marketing", "consulting", "academy", "photography", "gallery",
    "art", "music", "video", "games", "fun", "wiki", "one", "red", "blue", "pink", "earth",
    "global", "group", "team", "work", "works"
})  # fmt: skip

_LABEL = r"[\p{L}\p{N}](?:[\p{L}\p{N}_-]*[\p{L}\p{N}])?"
_PATH_END = r"[\p{L}\p{N}/=_#&+\-~@%$*]"  # a URL's path does not end in punctuation
_TAIL = rf"(?::\d{{1,5}})?(?:[/?#](?:[^\s<>\"]*{_PATH_END})?)?"
URL_PATTERN = regex.compile(
    rf"(?<![\p{{L}}\p{{N}}@\uFF20$#\uFF03./_-])"  # what may not stand before a URL (twitter-text)
    rf"(?P<scheme>https?://)?"
    rf"(?P<host>(?:{_LABEL}\.)+(?P<tld>\p{{L}}{{2,}}))"
    rf"(?P<tail>{_TAIL})",
    regex.IGNORECASE,
)
SCHEMED_URL = regex.compile(rf"https?://[^\s<>\"]*{_PATH_END}|https?://\S+", regex.IGNORECASE)
EMOJI_SEQUENCE = regex.compile(
    r"\p{Extended_Pictographic}|\p{Regional_Indicator}|^[#*0-9]\uFE0F?\u20E3$"
)


def count(text: str, counts_by: str) -> int:
    """`text`'s length as `counts_by` counts it."""
    if counts_by == "weighted":
        return weighted_length(text)
    if counts_by == "graphemes":
        return graphemes(text)
    if counts_by == "bytes":
        return len(text.encode())
    return len(text)


def graphemes(text: str) -> int:
    """User-perceived characters: an emoji sequence or a letter with its marks is one."""
    return len(regex.findall(r"\X", text))


def urls(text: str) -> list[tuple[int, int]]:
    """Where the URLs X counts as 23 are, (start, end) in `text`: one with a scheme whatever
    its host, a bare one by its top-level domain (a two-letter country code needs a subdomain
    or a path, as twitter-text's `invalidShortDomain` says: `setup.py` is no URL)."""
    found: list[tuple[int, int]] = []
    for match in URL_PATTERN.finditer(text):
        tld, host, tail = match["tld"].lower(), match["host"], match["tail"]
        if not match["scheme"]:
            if not host.isascii():
                continue
            labels = host.count(".") + 1
            country = len(tld) == 2 and (labels > 2 or tail.startswith("/"))
            if tld not in GENERIC_TLDS and not country:
                continue
        found.append(match.span())
    covered = {index for start, end in found for index in range(start, end)}
    for match in SCHEMED_URL.finditer(text):  # a scheme before a host no label rule knows
        if match.start() not in covered:
            found.append(match.span())
    return sorted(found)


def _emoji(cluster: str) -> bool:
    """Whether a grapheme cluster is an emoji: a pictograph shown as an emoji (by default or
    by its variation selector), a sequence around one (joiners, skin tones), a flag or a
    keycap."""
    if len(cluster) == 1:
        return bool(regex.match(r"\p{Emoji_Presentation}", cluster))
    return bool(EMOJI_SEQUENCE.search(cluster))


def _weight(character: str) -> int:
    point = ord(character)
    return 1 if any(first <= point <= last for first, last in LIGHT_RANGES) else 2


def weighted_length(text: str) -> int:
    """X's weighted length of `text` (twitter-text v3; see the module's docstring)."""
    text = unicodedata.normalize("NFC", text)
    total, position = 0, 0
    for start, end in urls(text):
        total += _plain_weight(text[position:start]) + WEIGHTED_URL
        position = end
    return total + _plain_weight(text[position:])


def _plain_weight(text: str) -> int:
    total = 0
    for cluster in regex.findall(r"\X", text):
        if _emoji(cluster):
            total += 2
        else:
            total += sum(_weight(character) for character in cluster)
    return total
