import math

import pytest

from calc_engine import Environment, EvalError, calculate, evaluate, parse


@pytest.mark.parametrize(
    "source, expected",
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("7 / 2", 3.5),
        ("8 / 2", 4),
        ("7 // 2", 3),
        ("7 % 3", 1),
        ("-7 % 3", 2),
        ("2 ^ 10", 1024),
        ("2 ** 0.5", 2**0.5),
        ("-3 + 5", 2),
        ("+4", 4),
        ("3 * -2", -6),
        ("2 ^ -1", 0.5),
    ],
)
def test_arithmetic(source, expected):
    assert calculate(source) == pytest.approx(expected)


def test_whole_division_gives_int():
    assert isinstance(calculate("8 / 2"), int)
    assert isinstance(calculate("8.0 / 2"), float)


@pytest.mark.parametrize(
    "source, expected",
    [("1 < 2", 1), ("2 <= 1", 0), ("3 == 3.0", 1), ("3 != 3", 0), ("1 + 1 >= 2", 1), ("0 > -1", 1)],
)
def test_comparisons(source, expected):
    assert calculate(source) == expected


def test_constants():
    assert calculate("pi") == math.pi
    assert calculate("tau / 2") == pytest.approx(math.pi)
    assert calculate("e") == math.e


def test_variables():
    assert calculate("a * b + c", {"a": 2, "b": 3, "c": 4}) == 10


def test_variable_shadows_constant():
    assert calculate("e + 1", {"e": 1}) == 2


def test_assignment_updates_environment():
    env = Environment({"y": 4})
    assert evaluate(parse("x = y * 2"), env) == 8
    assert env.variables == {"y": 4, "x": 8}
    assert evaluate(parse("x + 1"), env) == 9


@pytest.mark.parametrize(
    "source, expected",
    [
        ("abs(-3)", 3),
        ("sqrt(16)", 4.0),
        ("log(8, 2)", 3.0),
        ("log(e)", 1.0),
        ("round(2.675, 2)", 2.67),
        ("round(3.7)", 4),
        ("floor(2.5)", 2),
        ("ceil(2.1)", 3),
        ("min(3, 1, 2)", 1),
        ("max(3, 1, 2)", 3),
        ("hypot(3, 4)", 5.0),
        ("cos(0)", 1.0),
    ],
)
def test_functions(source, expected):
    assert calculate(source) == pytest.approx(expected)


@pytest.mark.parametrize(
    "source, fragment",
    [
        ("1 / 0", "division by zero"),
        ("1 // 0", "division by zero"),
        ("5 % 0", "modulo by zero"),
        ("0 ^ -1", "negative power"),
        ("(-8) ^ 0.5", "not a real number"),
        ("sqrt(-1)", "negative"),
        ("log(0)", "non-positive"),
        ("log(8, 1)", "base"),
        ("nope(1)", "unknown function"),
        ("zz + 1", "unknown variable"),
        ("hypot(1)", "takes 2 argument(s), got 1"),
        ("max()", "at least 1"),
        ("log(1, 2, 3)", "1 to 2"),
        ("round(1.5, 0.5)", "integer"),
        ("pi = 3", "built-in"),
        ("10.0 ^ 400", "too large"),
    ],
)
def test_errors(source, fragment):
    with pytest.raises(EvalError) as info:
        calculate(source)
    assert fragment in str(info.value)
