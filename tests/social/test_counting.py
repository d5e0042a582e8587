"""How a platform counts a text (`limits.countsBy`, social.md section 13), X's weighted count
above all: the values below are those of twitter-text's own conformance suite (configuration
v3: URLs 23, emoji sequences 2, CJK 2), and the count is the one validation, preview and
`limits` share."""

import pytest

from social.providers.counting import count, urls, weighted_length


@pytest.mark.parametrize(
    ("text", "weighted"),
    [
        ("This is a test.", 15),
        ("http://test.com", 23),
        ("https://test.com", 23),
        ("test.com", 23),  # a bare domain of a generic top-level domain
        ("Test https://test.com test https://test.com test.com test", 86),
        ("https://www.twitter.com/aloha " * 10, 240),
        ("H🐱☺👨\u200d👩\u200d👧\u200d👦", 7),  # a family of four joined: one emoji, 2
        ("😷👾😡🔥💩", 10),
        ("🙋🏽👨\u200d🎤", 4),  # a skin tone and a joined sequence: 2 each
        ("A\u0301B", 2),  # NFC: Á is one code point
        ("故人西辞黄鹤楼\uff0c", 16),  # CJK, and the full-width comma, weigh 2
        ("\u2000\u2010\u2032", 3),  # general punctuation in the light ranges
        ("™", 2),  # outside them
        ("1️⃣🇫🇷", 4),  # a keycap and a flag
        ("#️⃣", 2),
    ],
)
def test_the_weighted_length_is_twitter_texts(text, weighted):
    assert weighted_length(text) == weighted
    assert count(text, "weighted") == weighted


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("see https://example.com/a?b=1. then", ["https://example.com/a?b=1"]),
        ("www.example.de and example.de/launch", ["www.example.de", "example.de/launch"]),
        ("setup.py and example.de are files or short domains", []),
        ("write ada@example.com", []),  # an e-mail address is no URL
        ("#design.com $cash.com", []),
        ("e.g. i.e.", []),
        ("http://localhost:8000/x", ["http://localhost:8000/x"]),  # a scheme, whatever host
    ],
)
def test_urls_are_found_as_twitter_text_finds_them(text, found):
    assert [text[start:end] for start, end in urls(text)] == found


def test_each_count_by_its_name():
    text = "Café 🚀 ok"
    assert count(text, "characters") == 9
    assert count(text, "graphemes") == 9
    assert count(text, "bytes") == len(text.encode())
    assert count(text, "weighted") == 10
