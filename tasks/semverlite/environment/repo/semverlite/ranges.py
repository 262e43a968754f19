"""npm-style version ranges.

A range is one or more comparator sets joined by ``||``; a version satisfies the range when
it satisfies every comparator of at least one set. Within a set, comparators are separated
by spaces:

    1.2.3, =1.2.3        exactly 1.2.3
    >1.2.3 >=1.2 <2 <=2.1.0
                         partial versions are filled with zeros, except that ``<=1.2``
                         means ``<1.3.0`` and ``>1.2`` means ``>=1.3.0``
    1.2.x, 1.2, 1.*, *   x-ranges: any version with the given leading parts
    ~1.2.3               >=1.2.3 <1.3.0       (patch-level changes)
    ~1.2                 >=1.2.0 <1.3.0
    ~1                   >=1.0.0 <2.0.0
    ^1.2.3               >=1.2.3 <2.0.0       (changes that keep the left-most non-zero part)
    ^0.2.3               >=0.2.3 <0.3.0
    ^0.0.3               >=0.0.3 <0.0.4
    ^1.2, ^0.2           >=1.2.0 <2.0.0, >=0.2.0 <0.3.0
    1.2.3 - 2.3.4        >=1.2.3 <=2.3.4      (hyphen range, spaces around the hyphen)
    1.2 - 2.3            >=1.2.0 <2.4.0       (a partial upper bound includes all of it)

Pre-release versions are excluded unless ``include_prerelease`` is set or one comparator of
the set names a pre-release of the same ``MAJOR.MINOR.PATCH``.
"""

import re

from .version import Version

_PARTIAL = re.compile(
    r"^v?(?P<major>\d+|[xX*])(?:\.(?P<minor>\d+|[xX*])(?:\.(?P<patch>\d+|[xX*])"
    r"(?:-(?P<pre>[0-9A-Za-z.-]+))?)?)?$"
)
_OPERATOR = re.compile(r"^(<=|>=|<|>|=|\^|~)?\s*(.*)$")
_HYPHEN = re.compile(r"^\s*(\S+)\s+-\s+(\S+)\s*$")


def _wild(part):
    return part is None or part in ("x", "X", "*")


def _partial(text, source):
    """(major, minor, patch, prerelease) with None for parts that are missing or wild."""
    match = _PARTIAL.match(text)
    if not match:
        raise ValueError(f"invalid version {text!r} in range {source!r}")
    parts = []
    for name in ("major", "minor", "patch"):
        value = match[name]
        if _wild(value) or (parts and parts[-1] is None):
            parts.append(None)
        else:
            parts.append(int(value))
    pre = tuple(match["pre"].split(".")) if match["pre"] and parts[2] is not None else ()
    return parts[0], parts[1], parts[2], pre


def _floor(major, minor, patch, pre=()):
    return Version(major or 0, minor or 0, patch or 0, pre)


def _after(major, minor, patch):
    """The first release above everything a partial version covers."""
    if major is None:
        return None
    if minor is None:
        return Version(major + 1, 0, 0)
    if patch is None:
        return Version(major, minor + 1, 0)
    return Version(major, minor, patch + 1)


class Comparator:
    def __init__(self, op, version):
        self.op = op
        self.version = version

    def test(self, version):
        if self.op == "<":
            return version < self.version
        if self.op == "<=":
            return version <= self.version
        if self.op == ">":
            return version > self.version
        if self.op == ">=":
            return version >= self.version
        return version == self.version

    def __repr__(self):
        return f"{self.op}{self.version}"


def _caret(major, minor, patch, pre):
    low = _floor(major, minor, patch, pre)
    if major is None:
        return [Comparator(">=", Version(0, 0, 0))]
    if major > 0 or minor is None:
        high = Version(major + 1, 0, 0)
    else:
        high = Version(0, minor + 1, 0)
    return [Comparator(">=", low), Comparator("<", high)]


def _tilde(major, minor, patch, pre):
    low = _floor(major, minor, patch, pre)
    if major is None:
        return [Comparator(">=", Version(0, 0, 0))]
    if minor is None:
        high = Version(major + 1, 0, 0)
    else:
        high = Version(major, minor + 1, 0)
    return [Comparator(">=", low), Comparator("<", high)]


def _primitive(op, major, minor, patch, pre):
    if major is None:
        if op in ("<", ">"):
            return [Comparator("<", Version(0, 0, 0))]
        return [Comparator(">=", Version(0, 0, 0))]
    exact = patch is not None
    if op in ("", "="):
        if exact:
            return [Comparator("=", Version(major, minor, patch, pre))]
        return [Comparator(">=", _floor(major, minor, patch)), Comparator("<", _after(major, minor, patch))]
    if op == ">=":
        return [Comparator(">=", _floor(major, minor, patch, pre))]
    if op == "<":
        return [Comparator("<", _floor(major, minor, patch, pre) if exact else _floor(major, minor, patch))]
    if op == ">":
        if exact:
            return [Comparator(">", Version(major, minor, patch, pre))]
        return [Comparator(">=", _after(major, minor, patch))]
    if exact:
        return [Comparator("<=", Version(major, minor, patch, pre))]
    return [Comparator("<", _after(major, minor, patch))]


def _hyphen(low_text, high_text, source):
    low = _partial(low_text, source)
    high = _partial(high_text, source)
    comparators = [Comparator(">=", _floor(*low))]
    if high[0] is None:
        return comparators
    if high[2] is None:
        comparators.append(Comparator("<=", _floor(*high)))
    else:
        comparators.append(Comparator("<=", Version(high[0], high[1], high[2], high[3])))
    return comparators


def _comparator_set(text, source):
    hyphen = _HYPHEN.match(text)
    if hyphen:
        return _hyphen(hyphen[1], hyphen[2], source)
    tokens = re.sub(r"(<=|>=|<|>|=|\^|~)\s+", r"\1", text).split()
    if not tokens:
        return [Comparator(">=", Version(0, 0, 0))]
    comparators = []
    for token in tokens:
        op, rest = _OPERATOR.match(token).groups()
        parts = _partial(rest, source)
        if op == "^":
            comparators.extend(_caret(*parts))
        elif op == "~":
            comparators.extend(_tilde(*parts))
        else:
            comparators.extend(_primitive(op or "", *parts))
    return comparators


class Range:
    """A parsed range; ``version in range`` tests a Version or a version string."""

    def __init__(self, text, include_prerelease=False):
        if not isinstance(text, str):
            raise TypeError("a range must be a string")
        self.text = text
        self.include_prerelease = include_prerelease
        self.sets = [_comparator_set(part.strip(), text) for part in text.split("||")]

    def _allows_prerelease(self, comparators, version):
        if self.include_prerelease:
            return True
        for c in comparators:
            v = c.version
            if v.prerelease and (v.major, v.minor, v.patch) == (version.major, version.minor, version.patch):
                return True
        return False

    def __contains__(self, version):
        if isinstance(version, str):
            version = Version.parse(version)
        for comparators in self.sets:
            if not all(c.test(version) for c in comparators):
                continue
            if version.prerelease and not self._allows_prerelease(comparators, version):
                continue
            return True
        return False

    def __repr__(self):
        return f"Range({self.text!r})"


def satisfies(version, range_text, include_prerelease=False):
    """True when ``version`` (a Version or a string) is in the range ``range_text``."""
    return version in Range(range_text, include_prerelease)


def max_satisfying(versions, range_text, include_prerelease=False):
    """The highest of ``versions`` in the range, as given (string or Version), or None."""
    rng = Range(range_text, include_prerelease)
    best = None
    best_version = None
    for item in versions:
        version = item if isinstance(item, Version) else Version.parse(item)
        if version in rng and (best_version is None or version > best_version):
            best, best_version = item, version
    return best
