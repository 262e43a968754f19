"""Roman numerals and English ordinals."""

_NUMERALS = [
    (1000, "M"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
]

_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(number):
    """Standard Roman numeral of an integer from 1 to 3999 (4 is IV, 9 is IX, 1990 is MCMXC)."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError("to_roman() needs an int")
    if not 1 <= number <= 3999:
        raise ValueError("to_roman() needs a number from 1 to 3999")
    parts = []
    for value, letters in _NUMERALS:
        count, number = divmod(number, value)
        parts.append(letters * count)
    return "".join(parts)


def from_roman(numeral):
    """Integer value of a standard Roman numeral; anything non-canonical raises ValueError."""
    if not isinstance(numeral, str) or not numeral:
        raise ValueError("from_roman() needs a non-empty string")
    text = numeral.strip().upper()
    if any(c not in _VALUES for c in text):
        raise ValueError(f"not a Roman numeral: {numeral!r}")
    total = 0
    for i, c in enumerate(text):
        value = _VALUES[c]
        if i + 1 < len(text) and _VALUES[text[i + 1]] > value:
            total -= value
        else:
            total += value
    if not 1 <= total <= 3999 or to_roman(total) != text:
        raise ValueError(f"not a standard Roman numeral: {numeral!r}")
    return total


def ordinal(number):
    """English ordinal: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 102nd, -1st."""
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError("ordinal() needs an int")
    last_digit = abs(number) % 10
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(last_digit, "th")
    return f"{number}{suffix}"
