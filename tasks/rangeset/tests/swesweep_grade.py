"""The grader of this sample task, in SWE-sweep's verifier contract.

Written for this project (Python 3 standard library, pytest from the image). It reads
swesweep_eval.json next to it and grades only the subtasks listed there (a bug subset is that
file rewritten), then writes under the output directory:

  reward.json       the nine keys, also when grading fails (grader_failed 1)
  eval.json         per-subtask results in SWE-sweep's eval.json schema
  eval_output.json  the console output of every suite run
  grader_error.txt  why grading failed, only then

Usage: swesweep_grade.py [--tests DIR] [--patch FILE] [--out DIR] [--workdir DIR]
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
import xml.etree.ElementTree as ET

REWARD_KEYS = ("reward", "n_subtasks", "n_resolved", "n_partial", "visible_ok", "n_regressions",
               "agent_patch_applied", "agent_build_ok", "grader_failed")
BASE_REF = "baseline"
# Reverted after the agent's patch, wherever they are: pytest's configuration and plugins.
PYTEST_CONFIG = ("pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml")


class GraderError(Exception):
    """Grading could not be done: the trial is not measured."""


class Runs:
    """The console output of every command and suite run, for eval_output.json."""

    def __init__(self):
        self.runs = []

    def record(self, name, argv, exit_code, seconds, output, timed_out=False):
        self.runs.append({"name": name, "command": argv, "exit_code": exit_code, "timed_out": timed_out,
                          "duration_s": round(seconds, 3), "output": output})


def git(workdir, *args, check=True):
    proc = subprocess.run(["git", "-c", "core.hooksPath=/dev/null", *args], cwd=workdir,
                          capture_output=True, text=True, errors="replace")
    if check and proc.returncode != 0:
        raise GraderError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc


def reset(workdir):
    """Back to the base: tracked files restored, everything else (bytecode too) removed."""
    git(workdir, "reset", "-q", "--hard", BASE_REF)
    git(workdir, "clean", "-q", "-f", "-f", "-d", "-x")


def apply_patch(workdir, patch):
    """Applies the patch; returns the error text, or None when it applied (an empty patch
    applies)."""
    with open(patch, "rb") as f:
        if not f.read().strip():
            return None
    proc = git(workdir, "apply", "--binary", "--whitespace=nowarn", patch, check=False)
    if proc.returncode != 0:
        git(workdir, "reset", "-q", "--hard", BASE_REF)
        git(workdir, "clean", "-q", "-f", "-f", "-d", "-x")
        return proc.stderr.strip() or f"git apply exited {proc.returncode}"
    return None


def restore_tests(workdir, test_paths):
    """Undoes the agent's edits to tests and to pytest's configuration: those paths are put
    back as at the base and files the agent added under them are removed."""
    changed = git(workdir, "status", "--porcelain", "-z", "--untracked-files=all").stdout.split("\0")
    for entry in changed:
        if not entry:
            continue
        path = entry[3:]
        name = os.path.basename(path)
        under_tests = any(path == p or path.startswith(p.rstrip("/") + "/") for p in test_paths)
        if not under_tests and name != "conftest.py" and name not in PYTEST_CONFIG:
            continue
        tracked = git(workdir, "cat-file", "-e", f"{BASE_REF}:{path}", check=False).returncode == 0
        if tracked:
            git(workdir, "checkout", "-q", BASE_REF, "--", path)
        else:
            full = os.path.join(workdir, path)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            elif os.path.lexists(full):
                os.unlink(full)


def purge_bytecode(workdir):
    for top, dirs, _ in os.walk(workdir):
        if ".git" in dirs:
            dirs.remove(".git")
        if "__pycache__" in dirs:
            shutil.rmtree(os.path.join(top, "__pycache__"))
            dirs.remove("__pycache__")


def run_pytest(workdir, targets, timeout, runs, name):
    """Runs pytest on targets; returns {test id: "passed" | "failed" | "skipped"}, empty when
    pytest wrote no report. Ids are the JUnit classname::name, as SWE-sweep's are."""
    report_dir = tempfile.mkdtemp(prefix="swesweep-junit-")
    report = os.path.join(report_dir, "report.xml")
    argv = [sys.executable, "-B", "-m", "pytest", "-p", "no:cacheprovider", "-o", "addopts=", "-q",
            "--continue-on-collection-errors", f"--junitxml={report}", *targets]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    start = time.monotonic()
    try:
        proc = subprocess.run(argv, cwd=workdir, env=env, capture_output=True, text=True, errors="replace",
                              timeout=timeout)
        runs.record(name, argv, proc.returncode, time.monotonic() - start, proc.stdout + proc.stderr)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + (e.stderr or b"")
        runs.record(name, argv, None, time.monotonic() - start,
                    out.decode(errors="replace") if isinstance(out, bytes) else out, timed_out=True)
        shutil.rmtree(report_dir, ignore_errors=True)
        return {}
    try:
        return junit_outcomes(report)
    finally:
        shutil.rmtree(report_dir, ignore_errors=True)


def junit_outcomes(report):
    try:
        root = ET.parse(report).getroot()
    except (OSError, ET.ParseError):
        return {}
    outcomes = {}
    for case in root.iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}"
        if case.find("failure") is not None or case.find("error") is not None:
            outcomes[test_id] = "failed"
        elif case.find("skipped") is not None:
            outcomes.setdefault(test_id, "skipped")
        else:
            outcomes.setdefault(test_id, "passed")
    return outcomes


def patch_files(workdir, patch):
    proc = git(workdir, "apply", "--numstat", "-z", patch)
    files = []
    for record in proc.stdout.split("\0"):
        fields = record.split("\t")
        if len(fields) == 3 and fields[2]:
            files.append(fields[2])
    return files


def load_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise GraderError(f"{what} {path}: {e}") from e


def load_config(tests):
    cfg = load_json(os.path.join(tests, "swesweep_eval.json"), "task config")
    if cfg.get("schema") != 2:
        raise GraderError(f"swesweep_eval.json: schema {cfg.get('schema')!r}, want 2")
    subtasks = cfg.get("subtasks")
    if not isinstance(subtasks, list) or not subtasks:
        raise GraderError("swesweep_eval.json: subtasks must be a non-empty list")
    for s in subtasks:
        if not isinstance(s, dict) or not isinstance(s.get("id"), str) or not isinstance(s.get("f2p"), list):
            raise GraderError(f"swesweep_eval.json: subtask {s!r} needs an id and an f2p list")
    return cfg


def grade(tests, patch, workdir, runs):
    cfg = load_config(tests)
    evaluation = cfg.get("evaluation") or {}
    paths = evaluation.get("paths") or "tests"
    test_paths = [paths] if isinstance(paths, str) else list(paths)
    timeout = float(evaluation.get("test_timeout") or 600)
    base = load_json(os.path.join(tests, "base_tests.json"), "base tests")
    ignored = set(base.get("ignored") or [])
    passing = [t for t in base.get("passing") or [] if t not in ignored]
    if not os.path.isfile(patch):
        raise GraderError(f"no agent patch at {patch}")
    workdir = workdir or cfg.get("container_repo")
    if not workdir or not os.path.isdir(os.path.join(workdir, ".git")):
        raise GraderError(f"the repository {workdir!r} is not a git work tree")

    reset(workdir)
    patch_error = apply_patch(workdir, patch)
    restore_tests(workdir, test_paths)
    purge_bytecode(workdir)

    visible = run_pytest(workdir, test_paths, timeout, runs, "visible")
    regressions = sorted(t for t in passing if visible.get(t) != "passed")

    subtasks = []
    for s in cfg["subtasks"]:
        subtasks.append(grade_subtask(tests, workdir, s, timeout, runs))
    n_subtasks = len(subtasks)
    n_resolved = sum(s["resolved"] for s in subtasks)
    n_partial = sum(s["partial"] for s in subtasks)
    score = 0.0 if regressions else round(n_resolved / n_subtasks, 4)
    rewards = {"reward": score, "n_subtasks": n_subtasks, "n_resolved": n_resolved, "n_partial": n_partial,
               "visible_ok": 0 if regressions else 1, "n_regressions": len(regressions),
               "agent_patch_applied": 0 if patch_error else 1, "agent_build_ok": 1, "grader_failed": 0}
    evaluation_doc = {
        "evaluated_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S"),
        "task": cfg.get("task"), "version": cfg.get("version"), "oracle": False, "score": score,
        "visible_ok": not regressions, "agent_patch_applied": patch_error is None, "agent_build_ok": True,
        "agent_patch_error": patch_error, "n_subtasks": n_subtasks, "n_resolved": n_resolved,
        "n_partial": n_partial, "n_regressions": len(regressions), "regressions": regressions,
        "visible_tests": visible, "subtasks": subtasks,
    }
    return rewards, evaluation_doc


def grade_subtask(tests, workdir, subtask, timeout, runs):
    """Applies the subtask's hidden tests, runs the test files they touch, and reverts them.
    A bug is resolved when nothing in that run failed and something passed; a fail-to-pass
    test missing from the run counts as neither."""
    sid = subtask["id"]
    f2p = list(subtask["f2p"])
    result = {"subtask_id": sid, "resolved": False, "partial": False, "test_applied": False, "targeted": [],
              "n_passed": 0, "n_failed": 0, "duration_s": 0.0, "detail": {}, "has_split": True,
              "f2p_passed": [], "p2p_passed": [], "f2p_failed": [], "p2p_failed": []}
    test_patch = os.path.join(tests, "subtasks", sid, "test.patch")
    start = time.monotonic()
    if not os.path.isfile(test_patch):
        raise GraderError(f"subtask {sid}: no {test_patch}")
    targeted = patch_files(workdir, test_patch)
    proc = git(workdir, "apply", "--binary", "--whitespace=nowarn", test_patch, check=False)
    if proc.returncode != 0:
        result["detail"]["error"] = f"test patch does not apply: {proc.stderr.strip()}"
        return result
    result["test_applied"], result["targeted"] = True, targeted
    try:
        outcomes = run_pytest(workdir, targeted, timeout, runs, f"subtask {sid}")
    finally:
        revert_test_patch(workdir, targeted)
    for test_id, outcome in sorted(outcomes.items()):
        side = "f2p" if test_id in f2p else "p2p"
        if outcome == "passed":
            result[f"{side}_passed"].append(test_id)
        elif outcome == "failed":
            result[f"{side}_failed"].append(test_id)
    result["n_passed"] = len(result["f2p_passed"]) + len(result["p2p_passed"])
    result["n_failed"] = len(result["f2p_failed"]) + len(result["p2p_failed"])
    result["resolved"] = result["n_failed"] == 0 and result["n_passed"] > 0
    result["partial"] = not result["resolved"] and bool(result["f2p_passed"])
    if not outcomes:
        result["detail"]["error"] = "the targeted run wrote no report"
    result["duration_s"] = round(time.monotonic() - start, 3)
    return result


def revert_test_patch(workdir, targeted):
    for path in targeted:
        if git(workdir, "cat-file", "-e", f"{BASE_REF}:{path}", check=False).returncode == 0:
            git(workdir, "checkout", "-q", BASE_REF, "--", path)
        elif os.path.lexists(os.path.join(workdir, path)):
            os.unlink(os.path.join(workdir, path))
    purge_bytecode(workdir)


def write_json(out, name, doc):
    tmp = os.path.join(out, f".{name}.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, os.path.join(out, name))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="grade an agent's patch for this task")
    ap.add_argument("--tests", default=here)
    ap.add_argument("--patch", default="/logs/artifacts/model.patch")
    ap.add_argument("--out", default="/logs/verifier")
    ap.add_argument("--workdir", default="", help="the repository (default: container_repo)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    runs = Runs()
    try:
        rewards, evaluation_doc = grade(args.tests, args.patch, args.workdir, runs)
    except Exception as e:  # every failure is reported as one: the trial is not measured
        reason = str(e) if isinstance(e, GraderError) else traceback.format_exc()
        with open(os.path.join(args.out, "grader_error.txt"), "w", encoding="utf-8") as f:
            f.write(reason.rstrip("\n") + "\n")
        write_json(args.out, "eval_output.json", {"runs": runs.runs})
        write_json(args.out, "reward.json", {**dict.fromkeys(REWARD_KEYS, 0), "grader_failed": 1})
        print(f"grader failed: {reason}", file=sys.stderr)
        return 1
    write_json(args.out, "eval.json", evaluation_doc)
    write_json(args.out, "eval_output.json", {"runs": runs.runs})
    write_json(args.out, "reward.json", rewards)
    print(json.dumps(rewards, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
