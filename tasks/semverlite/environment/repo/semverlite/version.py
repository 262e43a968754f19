"""Parsing, ordering and bumping of semantic versions."""

import functools
import re

_NUMBER = r"0|[1-9]\d*"
_IDENT = r"[0-9A-Za-z-]+"
_PATTERN = re.compile(
    rf"^v?(?P<major>{_NUMBER})\.(?P<minor>{_NUMBER})\.(?P<patch>{_NUMBER})"
    rf"(?:-(?P<pre>{_IDENT}(?:\.{_IDENT})*))?"
    rf"(?:\+(?P<build>{_IDENT}(?:\.{_IDENT})*))?$"
)


def _check_prerelease(identifiers, text):
    for ident in identifiers:
        if ident.isdigit() and len(ident) > 1 and ident[0] == "0":
            raise ValueError(f"numeric pre-release identifier with a leading zero in {text!r}")


@functools.total_ordering
class Version:
    """An immutable semantic version ``MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]``.

    Ordering follows semver.org: numbers compare numerically; a pre-release version is lower
    than the release it precedes (``1.0.0-rc.1 < 1.0.0``); pre-release identifiers compare
    one by one, numeric ones numerically and below alphanumeric ones, and a longer list wins
    when all shared ones are equal (``1.0.0-alpha < 1.0.0-alpha.1``). Build metadata is
    ignored by comparisons and equality.
    """

    __slots__ = ("major", "minor", "patch", "prerelease", "build")

    def __init__(self, major, minor, patch, prerelease=(), build=()):
        for name, value in (("major", major), ("minor", minor), ("patch", patch)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a non-negative int")
        object.__setattr__(self, "major", major)
        object.__setattr__(self, "minor", minor)
        object.__setattr__(self, "patch", patch)
        object.__setattr__(self, "prerelease", tuple(str(p) for p in prerelease))
        object.__setattr__(self, "build", tuple(str(b) for b in build))

    def __setattr__(self, name, value):
        raise AttributeError("Version is immutable")

    @classmethod
    def parse(cls, text):
        if not isinstance(text, str):
            raise TypeError("a version must be parsed from a string")
        match = _PATTERN.match(text.strip())
        if not match:
            raise ValueError(f"not a semantic version: {text!r}")
        pre = tuple(match["pre"].split(".")) if match["pre"] else ()
        _check_prerelease(pre, text)
        build = tuple(match["build"].split(".")) if match["build"] else ()
        return cls(int(match["major"]), int(match["minor"]), int(match["patch"]), pre, build)

    @property
    def is_prerelease(self):
        return bool(self.prerelease)

    def _key(self):
        if not self.prerelease:
            return (self.major, self.minor, self.patch, 0, ())
        pre = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in self.prerelease)
        return (self.major, self.minor, self.patch, 1, pre)

    def __eq__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() == other._key()

    def __lt__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return self._key() < other._key()

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += "-" + ".".join(self.prerelease)
        if self.build:
            text += "+" + ".".join(self.build)
        return text

    def __repr__(self):
        return f"Version({str(self)!r})"

    def bump(self, part):
        """The next version: ``major``, ``minor`` or ``patch`` (lower parts reset to 0,
        pre-release and build dropped), or ``prerelease`` (described in ``next_prerelease``)."""
        if part == "major":
            return Version(self.major + 1, 0, 0)
        if part == "minor":
            return Version(self.major, self.minor + 1, self.patch)
        if part == "patch":
            if self.prerelease:
                return Version(self.major, self.minor, self.patch)
            return Version(self.major, self.minor, self.patch + 1)
        if part == "prerelease":
            return self.next_prerelease()
        raise ValueError(f"unknown part {part!r}")

    def next_prerelease(self, label="rc"):
        """``1.2.3`` -> ``1.2.4-rc.0``; ``1.2.4-rc.0`` -> ``1.2.4-rc.1``; ``1.2.4-beta`` ->
        ``1.2.4-beta.0``. The last numeric identifier is incremented if there is one."""
        if not self.prerelease:
            return Version(self.major, self.minor, self.patch + 1, (label, "0"))
        parts = list(self.prerelease)
        for i in range(len(parts) - 1, -1, -1):
            if parts[i].isdigit():
                parts[i] = str(int(parts[i]) + 1)
                return Version(self.major, self.minor, self.patch, parts)
        return Version(self.major, self.minor, self.patch, parts + ["0"])


def parse(text):
    """Parse ``text`` (an optional leading ``v`` is accepted) into a Version."""
    return Version.parse(text)
