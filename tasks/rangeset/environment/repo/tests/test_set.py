from rangeset import RangeSet


def test_ranges_are_sorted_and_overlaps_merged():
    assert RangeSet("10-12,1-5,3-7").ranges == [(1, 7), (10, 12)]


def test_contains():
    s = RangeSet("1-3,10-12")
    assert 2 in s and 10 in s and 12 in s
    assert 0 not in s and 5 not in s and 13 not in s


def test_iteration_lists_every_number():
    assert list(RangeSet("1-3,8-9")) == [1, 2, 3, 8, 9]


def test_empty_set():
    s = RangeSet("")
    assert s.ranges == [] and len(s) == 0 and list(s) == []


def test_union_merges_overlaps():
    assert (RangeSet("1-4") | RangeSet("3-9,20-22")).ranges == [(1, 9), (20, 22)]


def test_text_of_ranges():
    assert str(RangeSet("20-25,1-9")) == "1-9,20-25"


def test_equality_ignores_how_it_was_written():
    assert RangeSet("1-5,2-3") == RangeSet([(1, 5)])
    assert hash(RangeSet("1-5")) == hash(RangeSet("3-5,1-4"))
