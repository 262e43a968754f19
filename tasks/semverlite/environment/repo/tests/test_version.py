import pytest

from semverlite import Version, parse


def test_parse_full():
    v = parse("1.2.3-rc.1+build.5")
    assert (v.major, v.minor, v.patch) == (1, 2, 3)
    assert v.prerelease == ("rc", "1")
    assert v.build == ("build", "5")
    assert v.is_prerelease


def test_parse_leading_v_and_spaces():
    assert parse(" v10.20.30 ") == Version(10, 20, 30)


@pytest.mark.parametrize(
    "text", ["1.2", "1.2.3.4", "01.2.3", "1.02.3", "1.2.3-", "1.2.3+", "1.2.3-01", "1.2.3-a..b", "a.b.c", ""]
)
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        parse(text)


def test_parse_needs_a_string():
    with pytest.raises(TypeError):
        parse(123)


def test_str_round_trip():
    for text in ["0.0.0", "1.2.3", "1.2.3-alpha.1", "1.2.3+sha.abc", "1.2.3-x-y.0+z"]:
        assert str(parse(text)) == text


def test_repr():
    assert repr(parse("1.2.3-b")) == "Version('1.2.3-b')"


def test_invalid_components():
    with pytest.raises(ValueError):
        Version(1, -1, 0)
    with pytest.raises(ValueError):
        Version(1, True, 0)


def test_immutable():
    v = Version(1, 2, 3)
    with pytest.raises(AttributeError):
        v.major = 2


@pytest.mark.parametrize(
    "low, high",
    [
        ("1.2.3", "1.2.4"),
        ("1.2.9", "1.10.0"),
        ("1.99.99", "2.0.0"),
        ("1.0.0-alpha", "1.0.0-alpha.1"),
        ("1.0.0-alpha.1", "1.0.0-alpha.beta"),
        ("1.0.0-alpha.beta", "1.0.0-beta"),
        ("1.0.0-beta.2", "1.0.0-beta.11"),
        ("1.0.0-beta.11", "1.0.0-rc.1"),
        ("1.0.0-rc.1", "1.0.1-alpha"),
    ],
)
def test_ordering(low, high):
    assert parse(low) < parse(high)
    assert parse(high) > parse(low)
    assert parse(low) != parse(high)


def test_build_metadata_is_ignored():
    assert parse("1.2.3+a") == parse("1.2.3+b")
    assert hash(parse("1.2.3+a")) == hash(parse("1.2.3"))
    assert len({parse("1.2.3+a"), parse("1.2.3")}) == 1


def test_sorting():
    assert [str(v) for v in sorted(map(parse, ["2.0.0", "1.10.0", "1.2.0", "0.9.9"]))] == [
        "0.9.9",
        "1.2.0",
        "1.10.0",
        "2.0.0",
    ]


def test_compare_with_other_types():
    assert parse("1.0.0") != "1.0.0"
    with pytest.raises(TypeError):
        parse("1.0.0") < "2.0.0"


@pytest.mark.parametrize(
    "text, part, expected",
    [
        ("1.2.3", "major", "2.0.0"),
        ("1.2.3-rc.1", "major", "2.0.0"),
        ("1.2.3", "patch", "1.2.4"),
        ("1.2.3+b", "patch", "1.2.4"),
        ("1.2.3-rc.1", "patch", "1.2.3"),
        ("1.2.0", "minor", "1.3.0"),
        ("1.2.3", "prerelease", "1.2.4-rc.0"),
        ("1.2.4-rc.0", "prerelease", "1.2.4-rc.1"),
        ("1.2.4-beta", "prerelease", "1.2.4-beta.0"),
        ("1.2.4-beta.3.x", "prerelease", "1.2.4-beta.4.x"),
    ],
)
def test_bump(text, part, expected):
    assert str(parse(text).bump(part)) == expected


def test_next_prerelease_label():
    assert str(parse("3.0.0").next_prerelease("alpha")) == "3.0.1-alpha.0"


def test_bump_unknown_part():
    with pytest.raises(ValueError):
        parse("1.0.0").bump("build")
