"""Evaluates parse trees against an environment of variables and functions."""

import math

from .errors import EvalError
from .parser import Assign, Binary, Call, Name, Number, Unary

CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _check_arity(name, args, low, high):
    if not low <= len(args) <= high:
        if low == high:
            expected = str(low)
        elif high == math.inf:
            expected = f"at least {low}"
        else:
            expected = f"{low} to {high}"
        raise EvalError(f"{name}() takes {expected} argument(s), got {len(args)}")


def _sqrt(x):
    if x < 0:
        raise EvalError("sqrt() of a negative number")
    return math.sqrt(x)


def _log(x, base=math.e):
    if x <= 0:
        raise EvalError("log() of a non-positive number")
    if base <= 0 or base == 1:
        raise EvalError("log() base must be positive and not 1")
    return math.log(x, base)


def _round(x, digits=0):
    if digits != int(digits):
        raise EvalError("round() digits must be an integer")
    result = round(x, int(digits))
    return int(result) if digits == 0 else result


# name -> (function, min args, max args)
FUNCTIONS = {
    "abs": (abs, 1, 1),
    "sqrt": (_sqrt, 1, 1),
    "log": (_log, 1, 2),
    "round": (_round, 1, 2),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "min": (min, 1, math.inf),
    "max": (max, 1, math.inf),
    "hypot": (math.hypot, 2, 2),
    "sin": (math.sin, 1, 1),
    "cos": (math.cos, 1, 1),
}


def _divide(a, b):
    if b == 0:
        raise EvalError("division by zero")
    result = a / b
    if isinstance(a, int) and isinstance(b, int) and result.is_integer():
        return int(result)
    return result


def _floor_divide(a, b):
    if b == 0:
        raise EvalError("division by zero")
    return int(a / b)


def _modulo(a, b):
    if b == 0:
        raise EvalError("modulo by zero")
    return a % b


def _power(a, b):
    if a == 0 and b < 0:
        raise EvalError("zero cannot be raised to a negative power")
    try:
        result = a**b
    except OverflowError:
        raise EvalError("result too large") from None
    if isinstance(result, complex):
        raise EvalError("result is not a real number")
    return result


BINARY = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": _divide,
    "//": _floor_divide,
    "%": _modulo,
    "^": _power,
    "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b),
    "<": lambda a, b: int(a < b),
    "<=": lambda a, b: int(a <= b),
    ">": lambda a, b: int(a > b),
    ">=": lambda a, b: int(a >= b),
}


class Environment:
    """Variables visible to an evaluation; constants can be read but not assigned."""

    def __init__(self, variables=None):
        self.variables = dict(variables or {})

    def lookup(self, name):
        if name in self.variables:
            return self.variables[name]
        if name in CONSTANTS:
            return CONSTANTS[name]
        raise EvalError(f"unknown variable {name!r}")

    def assign(self, name, value):
        if name in CONSTANTS or name in FUNCTIONS:
            raise EvalError(f"cannot assign to built-in {name!r}")
        self.variables[name] = value


def evaluate(node, env=None):
    """Evaluate a parse tree; an assignment stores its value and returns it."""
    if env is None:
        env = Environment()
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Name):
        return env.lookup(node.name)
    if isinstance(node, Unary):
        value = evaluate(node.operand, env)
        return -value if node.op == "-" else value
    if isinstance(node, Binary):
        left = evaluate(node.left, env)
        right = evaluate(node.right, env)
        return BINARY[node.op](left, right)
    if isinstance(node, Call):
        if node.name not in FUNCTIONS:
            raise EvalError(f"unknown function {node.name!r}", node.position)
        function, low, high = FUNCTIONS[node.name]
        args = [evaluate(arg, env) for arg in node.args]
        _check_arity(node.name, args, low, high)
        return function(*args)
    if isinstance(node, Assign):
        value = evaluate(node.value, env)
        env.assign(node.name, value)
        return value
    raise EvalError(f"cannot evaluate {type(node).__name__}")
