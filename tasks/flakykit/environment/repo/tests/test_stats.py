import pytest

from flakykit import mean, median, mode


@pytest.mark.parametrize("values, expected", [([1, 2, 6], 3.0), ([5], 5.0), ([-1, 1], 0.0)])
def test_mean(values, expected):
    assert mean(values) == expected


@pytest.mark.parametrize("values, expected", [([3, 1, 2], 2), ([7], 7), ([9, 1, 5, 3, 7], 5)])
def test_median_of_odd_count(values, expected):
    assert median(values) == expected


@pytest.mark.parametrize("values, expected", [([3, 1, 3, 2], 3), (["b", "a", "b"], "b"), ([4], 4)])
def test_mode_with_one_most_common_value(values, expected):
    assert mode(values) == expected


@pytest.mark.parametrize("function", [median, mode])
def test_empty_sequence_is_refused(function):
    with pytest.raises(ValueError):
        function([])
