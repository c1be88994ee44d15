#!/usr/bin/env python3
"""Runs unittest test files and prints one pytest-style status line per test, e.g.
    PASSED tests/test_slug.py::SlugifyTest::test_two_words
    FAILED tests/test_slug.py::SlugifyTest::test_collapses_separators
so that the usual SWE-bench/SWE-Gym pytest log parsing applies. Standard library only.
Usage: python3 run_tests.py [test files...]   (default: every tests/test_*.py). Exit 0 when all pass.
"""
import glob
import os
import sys
import unittest


class Result(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.statuses = []

    def _record(self, test, status):
        module, cls, name = test.id().rsplit(".", 2)
        path = module.replace(".", "/") + ".py"
        self.statuses.append((status, "%s::%s::%s" % (path, cls, name)))

    def addSuccess(self, test):
        super().addSuccess(test)
        self._record(test, "PASSED")

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._record(test, "FAILED")

    def addError(self, test, err):
        super().addError(test, err)
        self._record(test, "ERROR")

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._record(test, "SKIPPED")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._record(test, "XFAIL")


def main(argv):
    files = argv or sorted(glob.glob("tests/test_*.py"))
    sys.path.insert(0, os.getcwd())
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for f in files:
        suite.addTests(loader.loadTestsFromName(f[:-3].replace("/", ".")))
    runner = unittest.TextTestRunner(resultclass=Result, verbosity=1, stream=sys.stderr)
    result = runner.run(suite)
    for status, test_id in result.statuses:
        print("%s %s" % (status, test_id))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
