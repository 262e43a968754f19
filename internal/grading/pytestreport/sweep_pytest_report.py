"""sweep-operator's result channel for pytest.

The grader installs this module outside the repository, under a name of its own each run, and
loads it through PYTEST_PLUGINS, before any conftest.py of the repository. It reports every test report and the end of the
session as JSON lines on a pipe the grader opened, so that the verdict never depends on what
the tests print. It claims the pipe at import and removes its variables from the environment,
so that subprocesses and nested pytest sessions (pytester) neither inherit nor use it.
"""
import json
import os

import pytest

_fd = None
_nonce = None
_config = None


def _claim():
    global _fd, _nonce
    raw = os.environ.pop("SWEEP_PYTEST_REPORT_FD", None)
    _nonce = os.environ.pop("SWEEP_PYTEST_REPORT_NONCE", None)
    if raw is None:
        return
    try:
        fd = int(raw)
        _fd = os.dup(fd)  # not inheritable (PEP 446)
        os.close(fd)
    except (ValueError, OSError):
        _fd = None


_claim()


def _send(record):
    if _fd is None:
        return
    record["nonce"] = _nonce
    data = (json.dumps(record) + "\n").encode("utf-8", "surrogateescape")
    while data:
        data = data[os.write(_fd, data):]


class _Reporter:
    def __init__(self):
        self._outcomes = (pytest.skip.Exception, pytest.xfail.Exception)
        self._raised = {}

    # Outermost, so it sees the phase's own exception before any other hook (or code that
    # patched pytest's report objects) turns it into a report: a report that says "passed"
    # for a phase that raised is a forgery, which the grader reads as a failure.
    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        excinfo = call.excinfo
        self._raised[(item.nodeid, call.when)] = excinfo is not None and not isinstance(excinfo.value, self._outcomes)
        yield

    def pytest_runtest_logreport(self, report):
        _send({
            "nodeid": report.nodeid,
            "when": report.when,
            "outcome": report.outcome,
            "xfail": hasattr(report, "wasxfail"),
            "raised": self._raised.pop((report.nodeid, report.when), False),
        })

    def pytest_sessionfinish(self, session, exitstatus):
        _send({"end": True, "exitstatus": int(exitstatus), "collected": session.testscollected})


def pytest_configure(config):
    # Only the outermost session reports; an in-process nested one (pytester) has its own config.
    global _config
    if _config is None and _fd is not None:
        _config = config
        config.pluginmanager.register(_Reporter(), "sweep-pytest-report")
