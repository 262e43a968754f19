"""Writes the goldens of SWE-bench's parsers that read the instance besides the log
(parse_log_immutable_js and parse_log_jekyll pick a runner by pull request number,
parse_log_next and parse_log_lighthouse by version) and of parse_plotly_js (whose name
parsers.py does not collect): one OUT_DIR/<parser_name>.json per parser, shaped like
parsers.py's goldens with each case's "instance_id" and "version" added.

    hack/swebench-goldens/run-instance.sh SWEBENCH_GIT OUT_DIR [SEED]

which extracts both tags and runs this script with --checkout TAG=DIR for each.
The official functions are loaded with parsers.py's loader; the logs come from
corpus_languages.py's generators.
"""

import argparse
import importlib.util
import json
import os
import random
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


drivers = load("parsers")
corpus = load("corpus_languages")


def immutable_js(rng):
    out = []
    for pr, gen in [("2006", corpus.case_jest), ("2005", corpus.case_jest_json)]:
        for i in range(6):
            out.append((f"pr{pr}-{i}", f"immutable-js__immutable-js-{pr}", "4.0", gen(rng)))
    return out


def jekyll(rng):
    out = []
    for pr, gen in [("9141", corpus.case_minitest), ("8047", corpus.case_minitest), ("8167", corpus.case_minitest),
                    ("8761", corpus.case_cucumber), ("8771", corpus.case_cucumber)]:
        for i in range(3):
            out.append((f"pr{pr}-{i}", f"jekyll__jekyll-{pr}", "4.3", gen(rng)))
    return out


def lighthouse_mocha(rng):
    out = [f"running {rng.randint(1, 9)} test files"]
    for _ in range(rng.randint(1, 3)):
        out.append("  " + rng.choice(corpus.SUITES))
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.3:
                out.append("    " + rng.choice(corpus.SUITES))
            r = rng.random()
            if r < 0.25:
                out.append(f"      {rng.randint(1, 9)}) " + corpus.title(rng) + rng.choice(["", " (12ms)"]))
            else:
                out.append(corpus.colour(rng, "      ✔ " + corpus.title(rng) + rng.choice(["", " (5ms)", " (120mms)"])))
            corpus.noise(rng, out)
    out += ["", f"  {rng.randint(1, 9)} passing (1s)", "  1) after the summary"]
    return out


def lighthouse_json(rng):
    out = []
    for _ in range(rng.randint(1, 2)):
        out.append("+ ./node_modules/.bin/mocha --reporter json lighthouse-core/test")
        out.append(corpus.mocha_json(rng))
    return out


def lighthouse(rng):
    out = []
    for version, gen in [("9.5", lighthouse_mocha), ("10.0", lighthouse_mocha), ("10.2", lighthouse_mocha),
                         ("9.6", corpus.case_per_file), ("3.0", corpus.case_per_file), ("2.8", lighthouse_json)]:
        for i in range(3):
            out.append((f"v{version}-{i}", f"GoogleChrome__lighthouse-{1000 + i}", version, gen(rng)))
    return out


def next_karma(rng):
    out = []
    for _ in range(rng.randint(1, 2)):
        out += ["+ xvfb-run karma start", "noise before", "Starting browser Chrome", ""]
        depth = 1
        for _ in range(rng.randint(2, 8)):
            r = rng.random()
            if r < 0.3:
                depth = rng.randint(1, 3)
                out.append("  " * depth + rng.choice(corpus.SUITES))
            elif r < 0.4:
                out.append("  " * depth + rng.choice(["ERROR x", "LOG: 'hi'", "WARN y", "Check z", "inner"]))
            else:
                out.append(corpus.colour(rng, "  " * (depth + 1) + rng.choice(["✓", "✗", "✓"]) + " " + corpus.title(rng)))
            corpus.noise(rng, out)
        if rng.random() < 0.3:
            out += ["AssertionError: #", "  expected", "", "  ✓ after assertion"]
        out.append("TOTAL: 3 SUCCESS")
    return out


def next_mocha(rng):
    out = []
    for _ in range(rng.randint(1, 3)):
        out += ["  Running: test/" + rng.choice(["button", "ünï"]) + "/index-spec.js (1 of 2)", "", "", "",
                "  " + rng.choice(corpus.SUITES)]
        for _ in range(rng.randint(1, 5)):
            if rng.random() < 0.3:
                out.append(f"    {rng.randint(1, 9)}) " + corpus.title(rng))
            else:
                out.append("    ✓ " + corpus.title(rng) + rng.choice([" (5ms)", "(1ms)", " no timing"]))
            corpus.noise(rng, out)
    return out


def next_(rng):
    out = []
    for version, gen in [("1.27", next_mocha), ("1.25", next_karma), ("1.26", next_karma)]:
        for i in range(5):
            out.append((f"v{version}-{i}", f"alibaba-fusion__next-{4000 + i}", version, gen(rng)))
    return out


def plotly(rng):
    out = []
    for i in range(12):
        body = []
        for _ in range(rng.randint(2, 8)):
            depth = rng.randint(1, 4)
            if rng.random() < 0.35:
                body.append(" " * depth + "- " + rng.choice(corpus.SUITES) + " :")
            else:
                body.append(" " * depth + "* " + corpus.title(rng) + " : " + rng.choice(["ok", "OK 3ms", "failed", "not ok", "okFailed", ""]))
            corpus.noise(rng, body)
        out.append((f"case{i:02d}", f"plotly__plotly.js-{5000 + i}", "2.0", body))
    return out


CORPORA = {
    "parse_log_immutable_js": immutable_js,
    "parse_log_jekyll": jekyll,
    "parse_log_lighthouse": lighthouse,
    "parse_log_next": next_,
    "parse_plotly_js": plotly,
}

PARSER_MODULE = "swebench.harness.log_parsers.javascript"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", action="append", required=True, metavar="TAG=DIR")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    tags = []
    for c in args.checkout:
        tag, _, root = c.partition("=")
        fns = drivers.load_parsers(root)
        js = sys.modules.get(PARSER_MODULE)
        if js is not None and hasattr(js, "parse_plotly_js"):
            fns["parse_plotly_js"] = ("swebench/harness/log_parsers/javascript.py", js.parse_plotly_js)
        tags.append((tag, fns))

    os.makedirs(args.out, exist_ok=True)
    for parser, gen in CORPORA.items():
        rng = random.Random(f"{args.seed}/{parser}")
        upstream = {tag: (f"{fns[parser][0]}:{parser}" if parser in fns else "") for tag, fns in tags}
        cases, raised = [], 0
        for name, instance_id, version, body in gen(rng):
            log = corpus.end(rng, body)
            case = {"name": name, "log": log, "instance_id": instance_id, "version": version}
            spec = types.SimpleNamespace(instance_id=instance_id, version=version, log_parser=parser)
            try:
                for tag, fns in tags:
                    case[tag] = None
                    if parser in fns:
                        got = fns[parser][1](log, spec)
                        case[tag] = {k: got[k] for k in sorted(got)}
            except Exception:
                raised += 1
                continue
            cases.append(case)
        path = os.path.join(args.out, parser + ".json")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            json.dump({"upstream": upstream, "seed": args.seed, "cases": cases}, f, ensure_ascii=False, indent=1)
            f.write("\n")
        print(f"{path}: {len(cases)} cases" + (f" ({raised} left out: an official parser raised)" if raised else ""))


if __name__ == "__main__":
    main()
