import pytest

from calc_engine import TokenizeError, TokenKind, tokenize


def kinds(source):
    return [t.kind for t in tokenize(source)]


def texts(source):
    return [t.text for t in tokenize(source)][:-1]


def test_empty_source_is_just_eof():
    tokens = tokenize("   ")
    assert [t.kind for t in tokens] == [TokenKind.EOF]
    assert tokens[0].position == 3


def test_integers_and_floats():
    tokens = tokenize("12 3.5 .25 7.")
    assert [t.value for t in tokens[:-1]] == [12, 3.5, 0.25, 7.0]
    assert isinstance(tokens[0].value, int)
    assert isinstance(tokens[3].value, float)


def test_unsigned_exponent():
    tokens = tokenize("1e3 2.5E2")
    assert [t.value for t in tokens[:-1]] == [1000.0, 250.0]


def test_names_and_positions():
    tokens = tokenize("foo_1 + bar")
    assert [(t.kind, t.text, t.position) for t in tokens[:-1]] == [
        (TokenKind.NAME, "foo_1", 0),
        (TokenKind.OP, "+", 6),
        (TokenKind.NAME, "bar", 8),
    ]


def test_longest_operator_wins():
    assert texts("a//b<=c!=d==e>=f") == ["a", "//", "b", "<=", "c", "!=", "d", "==", "e", ">=", "f"]


def test_double_star_is_caret():
    assert texts("2**3") == ["2", "^", "3"]


def test_punctuation():
    assert kinds("f(a, b)") == [
        TokenKind.NAME,
        TokenKind.LPAREN,
        TokenKind.NAME,
        TokenKind.COMMA,
        TokenKind.NAME,
        TokenKind.RPAREN,
        TokenKind.EOF,
    ]


@pytest.mark.parametrize("source, offset", [("1 $ 2", 2), ("#", 0), ("a & b", 2)])
def test_unexpected_character(source, offset):
    with pytest.raises(TokenizeError) as info:
        tokenize(source)
    assert info.value.position == offset
    assert "unexpected character" in str(info.value)
