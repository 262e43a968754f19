import pytest

from textkit import slugify


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Hello, World!", "hello-world"),
        ("  spaces   everywhere  ", "spaces-everywhere"),
        ("Already-a-slug", "already-a-slug"),
        ("C++ & Python 3.11", "c-python-3-11"),
        ("---", ""),
        ("", ""),
        ("日本語 text", "text"),
    ],
)
def test_slugify(text, expected):
    assert slugify(text) == expected


def test_custom_separator():
    assert slugify("Hello big World", separator="_") == "hello_big_world"
    assert slugify("a b", separator="--") == "a--b"


def test_max_length_cuts_at_word_boundary():
    assert slugify("the quick brown fox", max_length=12) == "the-quick"
    assert slugify("the quick brown fox", max_length=9) == "the-quick"
    assert slugify("the quick brown fox", max_length=10) == "the-quick"


def test_max_length_inside_a_long_word():
    assert slugify("incomprehensibilities", max_length=6) == "incomp"


def test_max_length_not_reached():
    assert slugify("short", max_length=50) == "short"


@pytest.mark.parametrize("kwargs", [{"separator": ""}, {"separator": "x"}, {"max_length": 0}])
def test_invalid_arguments(kwargs):
    with pytest.raises(ValueError):
        slugify("some text", **kwargs)
