import pytest

from rangeset import parse_ranges


def test_single_numbers_and_ranges():
    assert parse_ranges("1-3,7,10-12") == [(1, 3), (7, 7), (10, 12)]


def test_whitespace_is_ignored():
    assert parse_ranges(" 1 - 3 , 7 ") == [(1, 3), (7, 7)]


def test_order_is_kept():
    assert parse_ranges("9,2-4") == [(9, 9), (2, 4)]


@pytest.mark.parametrize("text", ["", "   "])
def test_blank_is_empty(text):
    assert parse_ranges(text) == []


@pytest.mark.parametrize("text", ["a", "1-", "-3", "1,,2", "5-2", "1-2-3"])
def test_bad_items_are_refused(text):
    with pytest.raises(ValueError):
        parse_ranges(text)
