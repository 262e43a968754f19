"""A small arithmetic expression engine: tokenizer, Pratt parser and evaluator."""

from .errors import CalcError, EvalError, ParseError, TokenizeError
from .evaluator import Environment, evaluate
from .parser import parse
from .tokens import Token, TokenKind, tokenize


def calculate(source, variables=None):
    """Parse and evaluate ``source``; ``variables`` maps names to numbers."""
    env = Environment(variables or {})
    return evaluate(parse(source), env)


__all__ = [
    "CalcError",
    "Environment",
    "EvalError",
    "ParseError",
    "Token",
    "TokenKind",
    "TokenizeError",
    "calculate",
    "evaluate",
    "parse",
    "tokenize",
]
