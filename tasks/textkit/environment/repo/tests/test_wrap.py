import pytest

from textkit import truncate, wrap


def test_wrap_greedy():
    text = "the quick brown fox jumps over the lazy dog"
    assert wrap(text, 10) == ["the quick", "brown fox", "jumps over", "the lazy", "dog"]


def test_wrap_lines_never_exceed_width():
    text = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor"
    for width in range(11, 30):
        assert all(len(line) <= width for line in wrap(text, width))
        assert " ".join(wrap(text, width)) == text


def test_wrap_exact_fit():
    assert wrap("abc def", 7) == ["abc def"]
    assert wrap("abc def", 6) == ["abc", "def"]


def test_wrap_breaks_long_words():
    assert wrap("a abcdefghij b", 4) == ["a", "abcd", "efgh", "ij b"]


def test_wrap_keeps_long_words():
    assert wrap("a abcdefghij b", 4, break_long_words=False) == ["a", "abcdefghij", "b"]


def test_wrap_collapses_whitespace():
    assert wrap("  one\n\ntwo\tthree  ", 80) == ["one two three"]
    assert wrap("   ", 10) == []


def test_wrap_width_must_be_positive():
    with pytest.raises(ValueError):
        wrap("text", 0)


@pytest.mark.parametrize(
    "text, length, expected",
    [
        ("the quick brown fox", 19, "the quick brown fox"),
        ("the quick brown fox", 12, "the quick…"),
        ("the quick brown fox", 10, "the quick…"),
        ("incomprehensible", 6, "incom…"),
        ("the quick brown fox", 1, "…"),
    ],
)
def test_truncate(text, length, expected):
    assert truncate(text, length) == expected


def test_truncate_custom_ellipsis():
    assert truncate("the quick brown fox", 13, ellipsis="...") == "the quick..."


def test_truncate_too_short_for_ellipsis():
    with pytest.raises(ValueError):
        truncate("text", 2, ellipsis="...")
