"""Case conversions: headline title case and identifier styles."""

import re

# Articles, short conjunctions and short prepositions stay lower-case inside a title.
SMALL_WORDS = frozenset(
    "a an and as at but by en for if in nor of off on or per so the to up via vs yet".split()
)

_WORD = re.compile(r"[^\s]+")
_IDENTIFIER_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z0-9])|[A-Z]?[a-z0-9]+|[A-Z]+")


def _capitalize(word):
    """Upper-case the first letter of ``word`` (after any leading punctuation), keep the rest."""
    for i, c in enumerate(word):
        if c.isalpha():
            return word[:i] + c.upper() + word[i + 1 :]
    return word


def _has_inner_capital(word):
    return any(c.isupper() for c in word[1:])


def _title_word(word, force):
    """Title-case one word; each part of a hyphenated word is capitalized."""
    if "-" in word.strip("-"):
        return "-".join(_title_word(part, True) if part else part for part in word.split("-"))
    if _has_inner_capital(word) or word.isupper() and len(word) > 1:
        return word
    bare = word.strip(".,;:!?\"'()[]").lower()
    if not force and bare in SMALL_WORDS:
        return word.lower()
    return _capitalize(word.lower())


def title_case(text):
    """Headline-style title case.

    Every word is capitalized except the small words (articles, short conjunctions and
    prepositions), which are lower-case unless they are the first or the last word of the
    title or start a subtitle (after a colon). Words that already have an inner capital
    ("iPhone", "McDonald") or are all capitals ("NASA") are kept as written. Whitespace is
    kept as it is.
    """
    matches = list(_WORD.finditer(text))
    out = []
    position = 0
    for index, match in enumerate(matches):
        word = match.group()
        first = index == 0
        after_colon = index > 0 and matches[index - 1].group().endswith(":")
        out.append(text[position : match.start()])
        out.append(_title_word(word, first or after_colon))
        position = match.end()
    out.append(text[position:])
    return "".join(out)


def _identifier_words(text):
    words = []
    for chunk in re.split(r"[^A-Za-z0-9]+", text):
        words.extend(_IDENTIFIER_PARTS.findall(chunk))
    return [w.lower() for w in words]


def snake_case(text):
    """``"HTTPServer error"`` -> ``"http_server_error"``."""
    return "_".join(_identifier_words(text))


def kebab_case(text):
    """``"parseJSONValue"`` -> ``"parse-json-value"``."""
    return "-".join(_identifier_words(text))


def camel_case(text, upper_first=False):
    """``"user_id value"`` -> ``"userIdValue"`` (``"UserIdValue"`` with ``upper_first``)."""
    words = _identifier_words(text)
    if not words:
        return ""
    head = words[0].capitalize() if upper_first else words[0]
    return head + "".join(w.capitalize() for w in words[1:])
