"""URL slugs."""

import re
import unicodedata

_SEPARATORS = re.compile(r"[^a-z0-9]+")


def _fold(text):
    """Lower-case ASCII approximation of ``text``: accents are dropped, letters kept."""
    decomposed = unicodedata.normalize("NFC", text)
    ascii_only = decomposed.encode("ascii", "ignore").decode("ascii")
    return ascii_only.lower()


def slugify(text, separator="-", max_length=None):
    """Turn ``text`` into a slug: lower-case ASCII words joined by ``separator``.

    Accented letters keep their base letter ("Crème" gives "creme"); characters with no
    ASCII form are dropped; runs of anything else become one separator, and there is no
    separator at either end. With ``max_length`` the slug is cut at a word boundary when
    possible, never leaving a trailing separator.
    """
    if not separator or any(c.isalnum() for c in separator):
        raise ValueError("separator must be non-empty punctuation")
    words = [w for w in _SEPARATORS.split(_fold(text)) if w]
    slug = separator.join(words)
    if max_length is not None:
        if max_length < 1:
            raise ValueError("max_length must be positive")
        if len(slug) > max_length:
            cut = slug[:max_length]
            boundary = cut.rfind(separator)
            if boundary > 0 and slug[max_length : max_length + len(separator)] != separator:
                cut = cut[:boundary]
            slug = cut.rstrip(separator)
    return slug
