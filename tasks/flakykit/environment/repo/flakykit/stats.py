"""Mean, median and mode of a sequence of numbers."""


def mean(values):
    """Return the arithmetic mean of values (any iterable of numbers) as a float.

    Raises ValueError when values is empty.
    """
    values = list(values)
    if not values:
        raise ValueError("mean of an empty sequence")
    return sum(values) / len(values)


def median(values):
    """Return the median of values (any iterable of numbers).

    For an odd count it is the middle value of the sorted values; for an even count, the mean
    of the two middle values. Raises ValueError when values is empty.
    """
    ordered = sorted(values)
    if not ordered:
        raise ValueError("median of an empty sequence")
    return ordered[len(ordered) // 2]


def mode(values):
    """Return the most common value of values (any iterable of hashable, ordered values).

    When several values are equally common, return the smallest of them. Raises ValueError
    when values is empty.
    """
    counts = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    if not counts:
        raise ValueError("mode of an empty sequence")
    best = max(counts.values())
    return [value for value in counts if counts[value] == best][-1]
