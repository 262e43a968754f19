import pytest

from calc_engine import ParseError, parse
from calc_engine.parser import Assign, Binary, Call, Name, Number, Unary


def shape(node):
    """A compact, position-free rendering of a tree."""
    if isinstance(node, Number):
        return node.value
    if isinstance(node, Name):
        return node.name
    if isinstance(node, Unary):
        return (node.op, shape(node.operand))
    if isinstance(node, Binary):
        return (node.op, shape(node.left), shape(node.right))
    if isinstance(node, Call):
        return (node.name, [shape(a) for a in node.args])
    if isinstance(node, Assign):
        return ("=", node.name, shape(node.value))
    raise TypeError(node)


def test_precedence_of_product_over_sum():
    assert shape(parse("1 + 2 * 3")) == ("+", 1, ("*", 2, 3))


def test_left_associative_subtraction():
    assert shape(parse("10 - 4 - 3")) == ("-", ("-", 10, 4), 3)


def test_left_associative_division():
    assert shape(parse("a / b // c % d")) == ("%", ("//", ("/", "a", "b"), "c"), "d")


def test_parentheses_override():
    assert shape(parse("(1 + 2) * 3")) == ("*", ("+", 1, 2), 3)


def test_power_binds_tighter_than_product():
    assert shape(parse("2 * 3 ^ 2")) == ("*", 2, ("^", 3, 2))


def test_unary_minus_of_a_sum_needs_parentheses():
    assert shape(parse("-(1 + 2)")) == ("-", ("+", 1, 2))
    assert shape(parse("-1 + 2")) == ("+", ("-", 1), 2)


def test_calls():
    assert shape(parse("max(1, x, 2 + 3)")) == ("max", [1, "x", ("+", 2, 3)])
    assert shape(parse("f()")) == ("f", [])


def test_assignment():
    assert shape(parse("x = 1 + y")) == ("=", "x", ("+", 1, "y"))


def test_comparison_is_loosest():
    assert shape(parse("a + 1 < b * 2")) == ("<", ("+", "a", 1), ("*", "b", 2))


@pytest.mark.parametrize(
    "source, fragment",
    [
        ("1 +", "end of input"),
        ("(1 + 2", "expected ')'"),
        ("1 2", "unexpected '2'"),
        ("f(1,", "end of input"),
        ("a < b < c", "cannot be chained"),
        ("x = ", "end of input"),
        (")", "unexpected ')'"),
    ],
)
def test_errors(source, fragment):
    with pytest.raises(ParseError) as info:
        parse(source)
    assert fragment in str(info.value)
