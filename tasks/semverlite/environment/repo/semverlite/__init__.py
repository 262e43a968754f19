"""Semantic versions (semver.org 2.0.0) and npm-style version ranges."""

from .ranges import Range, max_satisfying, satisfies
from .version import Version, parse

__all__ = ["Range", "Version", "max_satisfying", "parse", "satisfies"]
