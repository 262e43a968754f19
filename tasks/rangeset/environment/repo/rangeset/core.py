"""Integer range sets.

A range set is written as comma-separated items, each either a single integer ("7") or an
inclusive range "start-end" ("10-12"). Negative numbers are not supported. Whitespace around
items is ignored.
"""


def parse_ranges(text):
    """Parse text into a list of inclusive (start, end) pairs, in the order written.

    An empty or blank string is the empty list. Raises ValueError for an item that is not a
    non-negative integer or a range whose start is greater than its end.
    """
    pairs = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            if text.strip():
                raise ValueError(f"empty item in {text!r}")
            continue
        if "-" in item:
            start_text, _, end_text = item.partition("-")
            start, end = _number(start_text, item), _number(end_text, item)
        else:
            start = end = _number(item, item)
        if start > end:
            raise ValueError(f"range {item!r} ends before it starts")
        pairs.append((start, end))
    return pairs


def _number(text, item):
    text = text.strip()
    if not text.isdigit():
        raise ValueError(f"not a number in {item!r}: {text!r}")
    return int(text)


def _normalize(pairs):
    """Sort the pairs and merge every two that overlap or touch: for integers, 1-3 and 4-6
    are the same set as 1-6."""
    merged = []
    for start, end in sorted(pairs):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


class RangeSet:
    """An immutable set of non-negative integers kept as sorted, disjoint, non-touching
    inclusive ranges."""

    def __init__(self, spec=""):
        if isinstance(spec, str):
            pairs = parse_ranges(spec)
        else:
            pairs = [(int(a), int(b)) for a, b in spec]
        self._ranges = _normalize(pairs)

    @property
    def ranges(self):
        """The ranges as a list of inclusive (start, end) pairs, sorted and merged."""
        return list(self._ranges)

    def __contains__(self, number):
        return any(start <= number <= end for start, end in self._ranges)

    def __len__(self):
        """How many integers the set holds."""
        return sum(end - start for start, end in self._ranges)

    def __iter__(self):
        for start, end in self._ranges:
            yield from range(start, end + 1)

    def __eq__(self, other):
        return isinstance(other, RangeSet) and self._ranges == other._ranges

    def __hash__(self):
        return hash(tuple(self._ranges))

    def union(self, other):
        return RangeSet(self._ranges + other._ranges)

    def __or__(self, other):
        return self.union(other)

    def __str__(self):
        """The canonical text: "start-end" for a range, the bare number for a single
        integer, joined by commas ("1-3,7,10-12")."""
        return ",".join(f"{start}-{end}" for start, end in self._ranges)

    def __repr__(self):
        return f"RangeSet({str(self)!r})"
