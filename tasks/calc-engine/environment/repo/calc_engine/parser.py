"""A Pratt parser producing a small tree of nodes.

Grammar, loosest first:

    comparison   ==  !=  <  <=  >  >=     (non-associative)
    additive     +  -                     (left)
    term         *  /  //  %              (left)
    unary        -  +                     (prefix)
    power        ^  (also written **)     (right)
    call/atom    name(args)  name  number  (expr)

so ``-2^2`` is ``-(2^2)`` and ``2^3^2`` is ``2^(3^2)``.
"""

from dataclasses import dataclass

from .errors import ParseError
from .tokens import TokenKind, tokenize


@dataclass(frozen=True)
class Number:
    value: float | int


@dataclass(frozen=True)
class Name:
    name: str
    position: int


@dataclass(frozen=True)
class Unary:
    op: str
    operand: object


@dataclass(frozen=True)
class Binary:
    op: str
    left: object
    right: object
    position: int


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple
    position: int


@dataclass(frozen=True)
class Assign:
    name: str
    value: object


COMPARISON = 10
ADDITIVE = 20
TERM = 30
UNARY = 40
POWER = 50

BINDING = {
    "==": COMPARISON,
    "!=": COMPARISON,
    "<": COMPARISON,
    "<=": COMPARISON,
    ">": COMPARISON,
    ">=": COMPARISON,
    "+": ADDITIVE,
    "-": ADDITIVE,
    "*": TERM,
    "/": TERM,
    "//": TERM,
    "%": TERM,
    "^": POWER,
}

RIGHT_ASSOCIATIVE = {"^"}


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.index = 0

    @property
    def current(self):
        return self.tokens[self.index]

    def advance(self):
        token = self.tokens[self.index]
        if token.kind is not TokenKind.EOF:
            self.index += 1
        return token

    def expect(self, kind, what):
        token = self.current
        if token.kind is not kind:
            raise ParseError(f"expected {what}, found {token.text or 'end of input'!r}", token.position)
        return self.advance()

    def parse_statement(self):
        first = self.current
        if (
            first.kind is TokenKind.NAME
            and self.tokens[self.index + 1].kind is TokenKind.OP
            and self.tokens[self.index + 1].text == "="
        ):
            self.advance()
            self.advance()
            node = Assign(first.text, self.parse_expression(0))
        else:
            node = self.parse_expression(0)
        if self.current.kind is not TokenKind.EOF:
            raise ParseError(f"unexpected {self.current.text!r}", self.current.position)
        return node

    def parse_expression(self, min_bp):
        left = self.parse_prefix()
        while True:
            token = self.current
            if token.kind is not TokenKind.OP or token.text not in BINDING:
                break
            bp = BINDING[token.text]
            if bp <= min_bp:
                break
            self.advance()
            if bp == COMPARISON:
                right = self.parse_expression(bp)
                if self.current.kind is TokenKind.OP and BINDING.get(self.current.text) == COMPARISON:
                    raise ParseError("comparisons cannot be chained", self.current.position)
            elif token.text in RIGHT_ASSOCIATIVE:
                right = self.parse_expression(bp)
            else:
                right = self.parse_expression(bp)
            left = Binary(token.text, left, right, token.position)
        return left

    def parse_prefix(self):
        token = self.advance()
        if token.kind is TokenKind.NUMBER:
            return Number(token.value)
        if token.kind is TokenKind.OP and token.text in ("-", "+"):
            return Unary(token.text, self.parse_expression(POWER))
        if token.kind is TokenKind.LPAREN:
            inner = self.parse_expression(0)
            self.expect(TokenKind.RPAREN, "')'")
            return inner
        if token.kind is TokenKind.NAME:
            if self.current.kind is TokenKind.LPAREN:
                return self.parse_call(token)
            return Name(token.text, token.position)
        if token.kind is TokenKind.EOF:
            raise ParseError("unexpected end of input", token.position)
        raise ParseError(f"unexpected {token.text!r}", token.position)

    def parse_call(self, name_token):
        self.expect(TokenKind.LPAREN, "'('")
        args = []
        if self.current.kind is not TokenKind.RPAREN:
            args.append(self.parse_expression(0))
            while self.current.kind is TokenKind.COMMA:
                self.advance()
                args.append(self.parse_expression(0))
        self.expect(TokenKind.RPAREN, "')' or ','")
        return Call(name_token.text, tuple(args), name_token.position)


def parse(source):
    """Parse one statement: an expression or ``name = expression``."""
    return Parser(tokenize(source)).parse_statement()
