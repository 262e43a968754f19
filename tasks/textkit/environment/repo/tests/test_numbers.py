import pytest

from textkit import from_roman, ordinal, to_roman


@pytest.mark.parametrize(
    "number, numeral",
    [(1, "I"), (3, "III"), (4, "IV"), (5, "V"), (8, "VIII"), (14, "XIV"), (40, "XL"),
     (44, "XLIV"), (400, "CD"), (1666, "MDCLXVI"), (2024, "MMXXIV"), (3888, "MMMDCCCLXXXVIII")],
)
def test_to_roman(number, numeral):
    assert to_roman(number) == numeral


@pytest.mark.parametrize("numeral, number", [("XIV", 14), ("mmxxiv", 2024), (" CDXLIV ", 444), ("MMM", 3000)])
def test_from_roman(numeral, number):
    assert from_roman(numeral) == number


@pytest.mark.parametrize("numeral", ["IIII", "VV", "IL", "ABC", "", "MMMM", "IIV"])
def test_from_roman_rejects_non_standard(numeral):
    with pytest.raises(ValueError):
        from_roman(numeral)


@pytest.mark.parametrize("bad", [0, 4000, -5])
def test_to_roman_range(bad):
    with pytest.raises(ValueError):
        to_roman(bad)


@pytest.mark.parametrize("bad", [2.0, "4", True])
def test_to_roman_type(bad):
    with pytest.raises(TypeError):
        to_roman(bad)


@pytest.mark.parametrize(
    "number, text",
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (10, "10th"), (21, "21st"), (22, "22nd"),
     (23, "23rd"), (100, "100th"), (101, "101st"), (1002, "1002nd"), (0, "0th"), (-3, "-3rd")],
)
def test_ordinal(number, text):
    assert ordinal(number) == text


def test_ordinal_type():
    with pytest.raises(TypeError):
        ordinal(1.5)
