"""rangeset: sets of integers written as ranges, such as "1-3,7,10-12"."""

from .core import RangeSet, parse_ranges

__all__ = ["RangeSet", "parse_ranges"]
