"""Writes the grading-parity goldens: what SWE-bench's own grading functions (tags v4.1.0 and
v5.0.1) return on grading cases generated from a seed.

    /usr/bin/python3 hack/swebench-goldens/grading_goldens.py SWEBENCH_GIT OUT_DIR [SEED]

SWEBENCH_GIT is a git directory (bare or not) of SWE-bench/SWE-bench with its tags; both tags are
extracted into a temporary directory outside the repository and nothing of them is kept. Three
files are written to OUT_DIR, each recording the upstream tag and files and the seed:

  logs_eval.json     get_logs_eval on an eval log (markers, CRs, exit-code records, bad-code
                     markers, suite-ran evidence, results outside the markers), then
                     get_eval_tests_report and get_resolution_status on its status map;
  tests_report.json  get_eval_tests_report and get_resolution_status on a status map given in
                     the map's order (truncated ids, fail-only, every status);
  run_report.json    make_run_report over a dataset, predictions and the report.json files of
                     the instances that completed.

The log cases only use parse_log_pytest's plain "STATUS id" lines (ids without whitespace or
" - "), on which both tags' parsers and ours agree whatever the parser work changes, and pytest
-v's "id STATUS [ 50%]" lines, which both skip, in another order (a truncated id's match follows
the parse map's order, not the text's); the parser goldens (parsers.py) cover the parse maps
themselves.

Each tag is graded in its own process (the module names of the two tags collide). The
harness's package __init__ files are not run, and third-party modules the machine lacks are
stubs: the functions called never use them.
"""

import importlib
import importlib.abc
import importlib.machinery
import json
import os
import random
import subprocess
import sys
import tempfile
import types

TAGS = ["v4.1.0", "v5.0.1"]
UPSTREAM = {
    "logs_eval": "swebench/harness/grading.py:get_logs_eval,get_eval_tests_report,get_resolution_status",
    "tests_report": "swebench/harness/grading.py:get_eval_tests_report,get_resolution_status",
    "run_report": "swebench/harness/reporting.py:make_run_report",
}
STUBS = {"requests", "docker", "datasets", "dotenv", "tqdm", "unidiff", "ghapi", "git", "modal", "bs4", "chardet"}

START = ">>>>> Start Test Output"
END = ">>>>> End Test Output"
EXIT = ">>>>> Test Exit Code"
BAD = [">>>>> Patch Apply Failed", ">>>>> Reset Failed", ">>>>> Tests Errored", ">>>>> Tests Timed Out"]
STATUSES = ["PASSED", "FAILED", "SKIPPED", "ERROR", "XFAIL"]
EVIDENCE = [
    "  3 passing (20ms)", "  0 passing (1ms)", "Executed 2 of 5 SUCCESS (0.1 secs)", "Executed 0 of 0 ERROR",
    "TOTAL: 3 SUCCESS", "TOTAL: 0 FAILED", "Tests:       2 passed, 2 total", "Tests: 0 total",
    "Test Suites: 1 failed, 2 passed, 3 total", "Test Suites: 0 total", "# tests 4", "# tests 0", "5 specs, 0 failures",
    "1 spec, 1 failure", "rendering case 'x': ok", "=== 2 passed in 0.10s ===", "Ran 3 tests in 0.1s", "OK",
    "test result: ok. 2 passed", "ImportError: cannot import name 'x'",
]
IDS = ["t.py::a", "t.py::b", "t.py::c", "t.py::p[a-1]", "t.py::p[a-2]", "t.py::p[b-1]", "u.py::T::m", "u.py::q[x-y]"]
DATASET_IDS = IDS + ["t.py::p[a", "t.py::p[", "u.py::q[x", "t.py::gone"]


# ---------------------------------------------------------------- cases


def exit_record(rng):
    code = rng.choice(["0", "1", "2", "-1", "0", "137", "\u0663", "\u0660", "00"])  # Arabic-Indic 3 and 0: Python's \\d
    return rng.choice([f"{EXIT}: {code}", f"{EXIT}:{code}", f"{EXIT}:\n  {code}", f"+ echo '{EXIT}: {code}'\n{EXIT}: {code}",
                       f"{EXIT}: $?", f"{EXIT} {code}"])


def status_lines(rng):
    lines = []
    for _ in range(rng.randint(0, 6)):
        lines.append(f"{rng.choice(STATUSES)} {rng.choice(IDS)}")
    return lines


def with_crs(rng, lines):
    out = []
    for line in lines:
        r = rng.random()
        if r < 0.1:
            out.append("progress 10%\r" + line)  # a bare CR splits the line
        elif r < 0.2:
            out.append(line + "\r")  # CRLF
        elif r < 0.25 and line:
            out.append(line[:3] + "\r" + line[3:])  # a CR inside the status word
        else:
            out.append(line)
    return out


def log_case(rng, i):
    pre = ["+ git status", "On branch main", "Applied patch src/x.py cleanly."]
    if rng.random() < 0.15:
        pre += status_lines(rng)  # results outside the markers
    if rng.random() < 0.1:
        pre.append(rng.choice(EVIDENCE))
    body = status_lines(rng)
    if rng.random() < 0.3:
        # pytest -v's lines, in another order than the summary's: the parsers skip them, so a
        # truncated id's first match is the summary's, not the one the text names first.
        verbose = [f"{line.split(' ', 1)[1]} {line.split(' ', 1)[0]} [ 50%]" for line in body]
        rng.shuffle(verbose)
        body = verbose + body
    if rng.random() < 0.5:
        body.insert(rng.randint(0, len(body)), rng.choice(EVIDENCE))
    if rng.random() < 0.1:
        body.insert(rng.randint(0, len(body)), exit_record(rng))  # printed by the tests
    post = []
    if rng.random() < 0.75:
        post.append(exit_record(rng))
    if rng.random() < 0.15:
        post.append(exit_record(rng))
    post.append("+ git checkout abc t.py")
    if rng.random() < 0.05:
        post.append(f"+ : '{START}'")  # a second start marker
    lines = list(pre)
    has_start = rng.random() < 0.92
    if has_start:
        lines.append(rng.choice([f"+ : '{START}'", START]))
    lines += body
    if rng.random() < 0.92:
        lines.append(rng.choice([f"+ : '{END}'", END]))
    lines += post
    if rng.random() < 0.08:
        # Anywhere but the last line (our verifier's own timeout marker goes there), and the
        # patch failure only after the start marker (before it, it is the patch step's).
        bad = rng.choice(BAD if has_start else BAD[1:])
        lines.insert(rng.randint(len(pre) + 1 if has_start else 0, len(lines) - 1), bad)
    lines = with_crs(rng, lines)
    log = "\n".join(lines) + "\n"
    return {
        "name": f"log-{i}",
        "log": log,
        "instance": instance(rng),
    }


def instance(rng):
    return {
        "FAIL_TO_PASS": rng.sample(DATASET_IDS, rng.randint(0, 3)),
        "PASS_TO_PASS": rng.sample(DATASET_IDS, rng.randint(0, 3)),
        "eval_type": rng.choice(["pass_and_fail", "pass_and_fail", "fail_only"]),
        "repo": "pytest-dev/pytest",
    }


def report_case(rng, i):
    keys = rng.sample(IDS + ["t.py::p[a-3]", "t.py::p[ab]", "t.py::x"], rng.randint(0, 7))
    words = STATUSES + ["PASSEDX"]
    status_map = [[k, rng.choice(words)] for k in keys]
    inst = instance(rng)
    # 4.1 takes fail-only from the repository, 5 from the instance's eval_type.
    inst["repo"] = rng.choice(["pytest-dev/pytest", "pytest-dev/pytest", "chartjs/Chart.js", "eslint/eslint"])
    return {"name": f"report-{i}", "status_map": status_map, "instance": inst}


def run_report_case(rng, i):
    n = rng.randint(0, 8)
    dataset = [f"o__r-{j}" for j in range(n)]
    predictions, outcomes = [], {}
    for iid in dataset + [f"o__other-{j}" for j in range(rng.randint(0, 2))]:
        r = rng.random()
        if r < 0.15 and iid in dataset:
            continue  # no prediction: incomplete
        patch = rng.choice([None, "", "diff", "diff", "diff", "diff"])
        predictions.append({"instance_id": iid, "model_name_or_path": "m", "model_patch": patch})
        if patch:
            outcomes[iid] = rng.choice(["resolved", "unresolved", "unresolved", "error"])
    if rng.random() < 0.2 and predictions:
        dup = dict(rng.choice(predictions))
        dup["model_patch"] = "diff"
        predictions.append(dup)  # the last prediction of an id wins
        outcomes.setdefault(dup["instance_id"], rng.choice(["resolved", "unresolved", "error"]))
    return {"name": f"run-{i}", "dataset": dataset, "predictions": predictions, "outcomes": outcomes}


def make_cases(seed):
    rng = random.Random(seed)
    return {
        "logs_eval": [log_case(rng, i) for i in range(400)],
        "tests_report": [report_case(rng, i) for i in range(300)],
        "run_report": [run_report_case(rng, i) for i in range(100)],
    }


# ---------------------------------------------------------------- worker (one tag)


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] not in STUBS:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        m = types.ModuleType(spec.name)
        m.__path__ = []
        m.__getattr__ = lambda name: type(name, (), {"__init__": lambda self, *a, **k: None})
        return m

    def exec_module(self, module):
        pass


def load(checkout):
    sys.meta_path.append(StubFinder())
    for name in ["swebench", "swebench.harness"]:
        m = types.ModuleType(name)
        m.__path__ = [os.path.join(checkout, *name.split("."))]
        sys.modules[name] = m
    return importlib.import_module("swebench.harness.grading"), importlib.import_module("swebench.harness.reporting")


def worker(tag, checkout, cases_path):
    grading, reporting = load(checkout)
    constants = importlib.import_module("swebench.harness.constants")
    with open(cases_path) as f:
        cases = json.load(f)
    v5 = tag.startswith("v5")
    fail_only_repos = getattr(constants, "FAIL_ONLY_REPOS", set())

    def eval_type(inst):
        if v5:
            return constants.EvalType(inst["eval_type"])
        return constants.EvalType.FAIL_ONLY if inst["repo"] in fail_only_repos else constants.EvalType.PASS_AND_FAIL

    def judged(sm, inst):
        gold = {"FAIL_TO_PASS": inst["FAIL_TO_PASS"], "PASS_TO_PASS": inst["PASS_TO_PASS"]}
        report = grading.get_eval_tests_report(sm, gold, eval_type=eval_type(inst))
        return {"tests_status": report, "resolution": grading.get_resolution_status(report)}

    out = {"logs_eval": [], "tests_report": [], "run_report": []}
    with tempfile.TemporaryDirectory() as tmp:
        specs = getattr(constants, "MAP_REPO_VERSION_TO_SPECS", {}).get("pytest-dev/pytest", {"": None})
        spec_version = next(iter(specs))  # 4.1 reads the test command of repo and version
        for case in cases["logs_eval"]:
            inst = case["instance"]
            spec = types.SimpleNamespace(repo=inst["repo"], version=spec_version, log_parser="parse_log_pytest",
                                         instance_id="x", eval_type=inst["eval_type"])
            path = os.path.join(tmp, "test_output.txt")
            with open(path, "w", newline="") as f:
                f.write(case["log"])
            sm, found = grading.get_logs_eval(spec, path)
            res = {"found": found, "status_map": sm}
            if found:
                res.update(judged(sm, inst))
            out["logs_eval"].append(res)
        for case in cases["tests_report"]:
            out["tests_report"].append(judged(dict(case["status_map"]), case["instance"]))
        for i, case in enumerate(cases["run_report"]):
            run_id = f"r{i}"
            base = os.path.join(tmp, "logs")
            reporting.RUN_EVALUATION_LOG_DIR = __import__("pathlib").Path(base)
            preds = {p["instance_id"]: p for p in case["predictions"]}
            for iid, outcome in case["outcomes"].items():
                if outcome == "error":
                    continue
                d = os.path.join(base, run_id, "m", iid)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "report.json"), "w") as f:
                    json.dump({iid: {"resolved": outcome == "resolved"}}, f)
            if not preds:
                out["run_report"].append(None)  # make_run_report needs a prediction to name its file
                continue
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                stdout = sys.stdout
                sys.stdout = open(os.devnull, "w")
                try:
                    kwargs = {"report_dir": tmp} if v5 else {}
                    path = reporting.make_run_report(preds, [{"instance_id": x} for x in case["dataset"]], run_id, **kwargs)
                finally:
                    sys.stdout.close()
                    sys.stdout = stdout
                with open(os.path.join(tmp, str(path))) as f:
                    out["run_report"].append(json.load(f))
            finally:
                os.chdir(cwd)
    json.dump(out, sys.stdout)


# ---------------------------------------------------------------- main


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--worker":
        worker(*sys.argv[2:5])
        return
    if len(sys.argv) not in (3, 4):
        sys.exit(f"usage: {sys.argv[0]} SWEBENCH_GIT OUT_DIR [SEED]")
    git_dir, out_dir = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    cases = make_cases(seed)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        cases_path = os.path.join(tmp, "cases.json")
        with open(cases_path, "w") as f:
            json.dump(cases, f)
        for tag in TAGS:
            checkout = os.path.join(tmp, tag)
            os.makedirs(checkout)
            archive = subprocess.run(["git", "--git-dir", git_dir, "archive", tag, "swebench"], check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", checkout], input=archive, check=True)
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", tag, checkout, cases_path],
                                  capture_output=True, text=True)
            if proc.returncode != 0:
                sys.exit(f"{tag}: the grading worker failed:\n{proc.stderr}")
            results[tag] = json.loads(proc.stdout)
    os.makedirs(out_dir, exist_ok=True)
    for kind in ["logs_eval", "tests_report", "run_report"]:
        doc = {
            "upstream": {tag: UPSTREAM[kind] for tag in TAGS},
            "seed": seed,
            "cases": [dict(case, **{tag: results[tag][kind][i] for tag in TAGS}) for i, case in enumerate(cases[kind])],
        }
        # One case a line: small, and a change shows as the cases it touches.
        with open(os.path.join(out_dir, kind + ".json"), "w") as f:
            f.write('{"upstream": %s, "seed": %d, "cases": [\n' % (json.dumps(doc["upstream"]), seed))
            f.write(",\n".join(json.dumps(c, ensure_ascii=False, sort_keys=True) for c in doc["cases"]))
            f.write("\n]}\n")
        print(f"{kind}: {len(doc['cases'])} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
