"""Small, dependency-free statistics helpers."""

from .stats import mean, median, mode

__all__ = ["mean", "median", "mode"]
