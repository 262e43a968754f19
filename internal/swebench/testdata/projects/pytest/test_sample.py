"""Tests whose outcomes are fixed by how they are written; regen.sh runs them with pytest -rA -v."""
import pytest


def test_passes():
    assert 1 + 1 == 2


def test_fails():
    assert 1 + 1 == 3, "arithmetic is broken"


@pytest.mark.skip(reason="not on this platform")
def test_skipped():
    pass


@pytest.mark.xfail(reason="known bug")
def test_expected_failure():
    assert False


@pytest.mark.xfail(run=False, reason="would hang")
def test_xfail_not_run():
    assert False


@pytest.fixture
def broken_fixture():
    raise RuntimeError("fixture setup fails")


def test_setup_error(broken_fixture):
    pass


@pytest.mark.parametrize("text", ["a b", "plain", "x - y"])
def test_param_with_spaces(text):
    assert text != "plain"


class TestGroup:
    def test_method_passes(self):
        assert True
