import pytest

from semverlite import Range, max_satisfying, parse, satisfies


@pytest.mark.parametrize(
    "range_text, inside, outside",
    [
        ("1.2.3", ["1.2.3", "1.2.3+build"], ["1.2.4", "1.2.2"]),
        ("=1.2.3", ["1.2.3"], ["1.3.0"]),
        (">=1.2.3", ["1.2.3", "9.0.0"], ["1.2.2"]),
        (">1.2.3", ["1.2.4"], ["1.2.3"]),
        ("<1.2.3", ["1.2.2", "0.0.1"], ["1.2.3"]),
        ("<=1.2.3", ["1.2.3"], ["1.2.4"]),
        (">=1.2 <2", ["1.2.0", "1.9.9"], ["1.1.9", "2.0.0"]),
        ("<=1.2", ["1.2.9"], ["1.3.0"]),
        (">1.2", ["1.3.0"], ["1.2.9"]),
        ("<1.2", ["1.1.9"], ["1.2.0"]),
        ("1.2.x", ["1.2.0", "1.2.7"], ["1.3.0", "1.1.9"]),
        ("1.2", ["1.2.5"], ["1.3.0"]),
        ("1.*", ["1.0.0", "1.99.0"], ["2.0.0", "0.9.0"]),
        ("*", ["0.0.1", "5.5.5"], []),
        ("", ["0.0.1"], []),
        ("~1.2.3", ["1.2.3", "1.2.9"], ["1.3.0", "1.2.2"]),
        ("~1.2", ["1.2.0", "1.2.9"], ["1.3.0"]),
        ("~1", ["1.0.0", "1.9.0"], ["2.0.0"]),
        ("^1.2.3", ["1.2.3", "1.9.0"], ["2.0.0", "1.2.2"]),
        ("^0.2.3", ["0.2.3", "0.2.9"], ["0.3.0", "0.2.2"]),
        ("^1.2", ["1.2.0", "1.99.0"], ["2.0.0"]),
        ("^0.2", ["0.2.0", "0.2.5"], ["0.3.0"]),
        ("^1", ["1.0.0"], ["2.0.0"]),
        ("1.2.3 - 2.3.4", ["1.2.3", "2.3.4"], ["2.3.5", "1.2.2"]),
        ("1.2 - 2.3.4", ["1.2.0"], ["1.1.9"]),
        ("1.x || >=3", ["1.5.0", "3.1.0"], ["2.1.0"]),
        (">= 1.2.3 < 1.5", ["1.4.9"], ["1.5.0"]),
    ],
)
def test_ranges(range_text, inside, outside):
    rng = Range(range_text)
    for v in inside:
        assert v in rng, (range_text, v)
    for v in outside:
        assert v not in rng, (range_text, v)


@pytest.mark.parametrize(
    "range_text, version, expected",
    [
        ("^1.2.3", "1.3.0-rc.1", False),
        (">=1.2.3-rc.1", "1.2.3-rc.2", True),
        (">=1.2.3-rc.1", "1.2.4-rc.2", False),
        ("~1.2.3-beta.2", "1.2.3-beta.4", True),
    ],
)
def test_prereleases_need_a_matching_comparator(range_text, version, expected):
    assert satisfies(version, range_text) is expected


def test_include_prerelease():
    assert satisfies("1.3.0-rc.1", "^1.2.3", include_prerelease=True)


def test_version_objects_are_accepted():
    assert parse("1.4.0") in Range("^1.2")


@pytest.mark.parametrize("bad", ["1.2.3.4", "^x.y", ">=1.2.3 junk", "1.2.3 - "])
def test_invalid_ranges(bad):
    with pytest.raises(ValueError):
        Range(bad)


def test_range_needs_a_string():
    with pytest.raises(TypeError):
        Range(None)


def test_max_satisfying():
    versions = ["1.2.3", "1.4.0", "2.0.0", "1.10.1", "1.11.0-rc.1"]
    assert max_satisfying(versions, "^1.2") == "1.10.1"
    assert max_satisfying(versions, "~1.4") == "1.4.0"
    assert max_satisfying(versions, ">=3") is None


def test_max_satisfying_keeps_the_given_objects():
    versions = [parse("1.0.0"), parse("1.1.0")]
    assert max_satisfying(versions, "1.x") is versions[1]
