"""Small, dependency-free text utilities."""

from .cases import camel_case, kebab_case, snake_case, title_case
from .numbers import from_roman, ordinal, to_roman
from .slug import slugify
from .wrap import truncate, wrap

__all__ = [
    "camel_case",
    "from_roman",
    "kebab_case",
    "ordinal",
    "slugify",
    "snake_case",
    "title_case",
    "to_roman",
    "truncate",
    "wrap",
]
