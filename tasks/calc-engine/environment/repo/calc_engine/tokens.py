"""Turns source text into a list of tokens."""

import enum
from dataclasses import dataclass

from .errors import TokenizeError


class TokenKind(enum.Enum):
    NUMBER = "number"
    NAME = "name"
    OP = "op"
    LPAREN = "("
    RPAREN = ")"
    COMMA = ","
    EOF = "eof"


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    text: str
    position: int
    value: float | int | None = None


# Longest operators first so that "**" and "//" win over "*" and "/".
OPERATORS = ("**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "^", "<", ">", "=")


def _scan_digits(source, i):
    while i < len(source) and source[i].isdigit():
        i += 1
    return i


def _scan_number(source, start):
    """Return (end, value) of the number literal starting at ``start``."""
    i = _scan_digits(source, start)
    is_float = False
    if i < len(source) and source[i] == ".":
        j = _scan_digits(source, i + 1)
        if j == i + 1 and i == start:
            raise TokenizeError("a number needs at least one digit", start)
        i = j
        is_float = True
    if i < len(source) and source[i] in "eE":
        j = i + 1
        if j < len(source) and source[j].isdigit():
            i = _scan_digits(source, j)
            is_float = True
    text = source[start:i]
    return i, (float(text) if is_float else int(text))


def tokenize(source):
    """Split ``source`` into tokens, ending with a single EOF token."""
    tokens = []
    i = 0
    n = len(source)
    while i < n:
        ch = source[i]
        if ch.isspace():
            i += 1
            continue
        if ch.isdigit() or (ch == "." and i + 1 < n and source[i + 1].isdigit()):
            end, value = _scan_number(source, i)
            tokens.append(Token(TokenKind.NUMBER, source[i:end], i, value))
            i = end
            continue
        if ch.isalpha() or ch == "_":
            j = i + 1
            while j < n and (source[j].isalnum() or source[j] == "_"):
                j += 1
            tokens.append(Token(TokenKind.NAME, source[i:j], i))
            i = j
            continue
        if ch == "(":
            tokens.append(Token(TokenKind.LPAREN, ch, i))
            i += 1
            continue
        if ch == ")":
            tokens.append(Token(TokenKind.RPAREN, ch, i))
            i += 1
            continue
        if ch == ",":
            tokens.append(Token(TokenKind.COMMA, ch, i))
            i += 1
            continue
        for op in OPERATORS:
            if source.startswith(op, i):
                tokens.append(Token(TokenKind.OP, "^" if op == "**" else op, i))
                i += len(op)
                break
        else:
            raise TokenizeError(f"unexpected character {ch!r}", i)
    tokens.append(Token(TokenKind.EOF, "", n))
    return tokens
