"""Times SWE-bench's own parser (one tag's checkout) on each golden benchmark log that
logparse's TestBenchLogs wrote (SWEEP_BENCH_LOG_DIR: <row>.log and rows.json), in process, and
prints per row "<row> <wall s> <cpu s> <ids>" (the best of --runs), "<row> raised <error>", or
"<row> timeout <s>" when one run takes longer than --timeout seconds.

    python3 speed_parsers.py --checkout DIR --logs DIR [--runs N] [--timeout S] [ROW...]
"""

import argparse
import contextlib
import json
import os
import signal
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import parsers as drivers  # noqa: E402

JS_MODULE = "swebench.harness.log_parsers.javascript"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", required=True)
    ap.add_argument("--logs", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("rows", nargs="*")
    args = ap.parse_args()

    fns = drivers.load_parsers(args.checkout)
    js = sys.modules.get(JS_MODULE)
    if js is not None and hasattr(js, "parse_plotly_js"):
        fns["parse_plotly_js"] = ("", js.parse_plotly_js)
    def too_long(signum, frame):
        raise TimeoutError()

    signal.signal(signal.SIGALRM, too_long)
    with open(os.path.join(args.logs, "rows.json")) as f:
        rows = json.load(f)
    for row in rows:
        if args.rows and row["row"] not in args.rows:
            continue
        with open(os.path.join(args.logs, row["row"] + ".log"), encoding="utf-8", newline="") as f:
            log = f.read()
        spec = types.SimpleNamespace(instance_id=row.get("instance_id", ""), version=row.get("version", ""),
                                     log_parser=row["parser"])
        fn = fns[row["parser"]][1]
        best_wall = best_cpu = None
        try:
            for _ in range(args.runs):
                # Some official parsers print what they read; that is not the figure.
                with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
                    signal.alarm(args.timeout)
                    c0, t0 = time.process_time(), time.perf_counter()
                    try:
                        got = fn(log, spec)
                    finally:
                        signal.alarm(0)
                    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                best_wall = wall if best_wall is None else min(best_wall, wall)
                best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        except TimeoutError:
            print(f"{row['row']} timeout {args.timeout}", flush=True)
            continue
        except Exception as e:  # the official parser raises on this log
            print(f"{row['row']} raised {type(e).__name__}", flush=True)
            continue
        print(f"{row['row']} {best_wall:.4f} {best_cpu:.4f} {len(got)}", flush=True)


if __name__ == "__main__":
    main()
