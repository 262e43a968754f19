"""Run as Django's runner does (unittest, verbosity 2); regen.sh captures the output."""
import unittest


class ArithmeticTests(unittest.TestCase):
    def test_ok(self):
        self.assertEqual(2 + 2, 4)

    def test_fail(self):
        self.assertEqual(2 + 2, 5)

    def test_error(self):
        raise ValueError("boom")

    @unittest.skip("not supported")
    def test_skip(self):
        pass

    @unittest.expectedFailure
    def test_expected_failure(self):
        self.assertEqual(1, 2)

    def test_prints_before_result(self):
        print("output between the dots and the verdict")
        self.assertTrue(True)
