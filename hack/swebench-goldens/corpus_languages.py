"""Logs for SWE-bench's parsers of languages other than Python: Jest (verbose, per-file, JSON
through jq), vitest, mocha (spec and JSON reporters), Karma, TAP, Deno, go test -v, cargo test,
Maven, Ant, Gradle, PHPUnit --testdox, minitest, cucumber, test-unit, RSpec, the Redis/Valkey Tcl
suite, jq, doctest XML, micropython's run-tests and googletest. Each case is a random mix drawn
from the seed, with the edge shapes these runners print: colour codes, unicode titles, ids
reported twice, interleaved output, skipped and todo tests, nested describe blocks, CRs."""

import json

# Parsers that read only the log (those reading the instance are in instance_goldens.py).
PARSERS = [
    "parse_log_calypso", "parse_log_chart_js", "parse_log_marked", "parse_log_p5js",
    "parse_log_react_pdf", "parse_log_jest", "parse_log_jest_json", "parse_log_vitest",
    "parse_log_karma", "parse_log_tap", "parse_log_bpmn_js", "parse_log_carbon",
    "parse_log_eslint", "parse_log_grommet", "parse_log_highlightjs", "parse_log_openlayers",
    "parse_log_prismjs", "parse_log_quarto_cli", "parse_log_cypress", "parse_log_emotion",
    "parse_log_prettier", "parse_log_scratch_gui", "parse_log_lighthouse_jest",
    "parse_log_redis", "parse_log_jq", "parse_log_doctest", "parse_log_micropython_test",
    "parse_log_googletest", "parse_log_gotest", "parse_log_cargo", "parse_log_maven",
    "parse_log_ant", "parse_log_gradle_custom", "parse_log_phpunit", "parse_log_minitest",
    "parse_log_cucumber", "parse_log_ruby_unit", "parse_log_rspec_transformed_json",
]

TITLES = [
    "renders the button", "handles empty input", "parses `code` spans", "works with ünïcödé ✓",
    "returns 42", "does not crash (regression #12)", "a  double  spaced title", "trailing dot.",
    "with - dashes - inside", "emoji 🎉 title", "漢字のテスト", "tab\tinside", "nbsp\u00a0here",
    "ends with (5ms)", "ends with 12", "has: a colon", "has > arrow", "quote \"q\" and 'p'",
    "ok 3 looks like tap", "PASS inside", "x", "passed - failed words", "digits \u0663\u0664",
    "sep\x1cinside", "em\u2003space",
]
SUITES = ["Button", "parser", "Marked › inline", "describe ünï", "nested suite", "API", "utils.js", "Ω suite"]
FILES = ["src/button.test.js", "packages/core/__tests__/index.test.ts", "test/ünï.spec.js", "a b/c.test.tsx",
         "lib/x.test.js"]
COLOURS = ["\x1b[32m", "\x1b[31m", "\x1b[0m", "\x1b[1m", "\x1b[2K", "\x1b[90m", "\x1b[33;1m"]
NOISE = ["", "console.log", "    at Object.<anonymous> (src/x.js:1:2)", "npm WARN deprecated",
         "Error: boom", "  expected 1 to equal 2", "+ set -x", "Done in 3.2s.", "\x1b[2K\x1b[1G",
         "✓ stray mark at column 0", "1) stray failure"]


def title(rng):
    return rng.choice(TITLES)


def colour(rng, s):
    if rng.random() < 0.15:
        return rng.choice(COLOURS) + s + rng.choice(COLOURS)
    return s


def ms(rng):
    return rng.choice(["", " (3 ms)", " (12ms)", " (1 s)", " (0.5 s)", "  (7 ms)", " (10 ms)"])


# Whitespace that Python's str.strip() and \s know and ASCII-only readers do not.
ODD_SPACE = ["\u00a0", "\x1c", "\u2003", "\x0b", "\t", "\u3000"]


def odd_spacing(rng, line):
    """Now and then, a line gets odd whitespace at its start, its end or inside it."""
    r = rng.random()
    if r < 0.04:
        return rng.choice(ODD_SPACE) + line
    if r < 0.08:
        return line + rng.choice(ODD_SPACE)
    if r < 0.10 and " " in line:
        return line.replace(" ", rng.choice(ODD_SPACE), 1)
    return line


def end(rng, body):
    sep = "\r\n" if rng.random() < 0.05 else "\n"
    return sep.join(odd_spacing(rng, line) for line in body) + rng.choice(["", "\n"])


def noise(rng, out):
    if rng.random() < 0.3:
        out.append(rng.choice(NOISE))


# --- JavaScript -------------------------------------------------------------------------------


def jest_verbose(rng, marks=("✓", "✕", "○")):
    out = []
    for _ in range(rng.randint(1, 3)):
        out.append(rng.choice(["PASS", "FAIL"]) + " " + rng.choice(FILES))
        depth = 1
        for _ in range(rng.randint(1, 6)):
            r = rng.random()
            if r < 0.2:
                depth = rng.randint(1, 3)
                out.append("  " * depth + rng.choice(SUITES))
            else:
                mark = rng.choice(marks)
                extra = " skipped" if mark == "○" and rng.random() < 0.3 else ""
                out.append(colour(rng, "  " * (depth + 1) + mark + " " + title(rng) + extra + ms(rng)))
            noise(rng, out)
    if rng.random() < 0.5:
        out.append("  ● " + rng.choice(SUITES) + " › " + title(rng))
        out.append("    expect(received).toBe(expected)")
    out.append("Test Suites: 1 failed, 2 passed, 3 total")
    return out


def case_jest(rng):
    return jest_verbose(rng)


def case_calypso(rng):
    out = ["+ yarn test-client"]
    for _ in range(rng.randint(1, 2)):
        out.append("+ npx" + rng.choice([" ./node_modules/.bin/jest ", " ./node_modules/.bin/jest "]) + "-c test/client/jest.config.js " + rng.choice(FILES))
        # A mark at column 0 makes the official parser raise; such logs would be left out.
        out += [l for l in jest_verbose(rng, ("✓", "✕")) if not l.startswith(("✓", "✕"))]
    return out


def case_jest_json(rng):
    out = []
    for _ in range(rng.randint(2, 8)):
        st = rng.choice(["PASSED", "FAILED", "SKIPPED", "PASSED"])
        out.append(rng.choice(["", "  "]) + f"[{st}]" + rng.choice([" ", "  ", "\t"]) + rng.choice(SUITES) + " " + title(rng))
        noise(rng, out)
    return out


def case_vitest(rng):
    out = [" RUN  v1.6.0 /app"]
    for _ in range(rng.randint(2, 8)):
        mark = rng.choice(["✓", "×", "↓", "✓"])
        suffix = rng.choice(["", " 3ms", " 12 ms", " [skipped]", " 7", ""])
        out.append(colour(rng, "   " + mark + " " + rng.choice(FILES) + " > " + rng.choice(SUITES) + " > " + title(rng) + suffix))
        noise(rng, out)
    out.append(" Test Files  1 failed | 2 passed (3)")
    return out


def case_karma(rng):
    out = ["karma start", "01 12 2026 10:00:00.000:INFO [launcher]: Starting browser ChromeHeadless"] if rng.random() < 0.9 else ["no start"]
    indent = 0
    for _ in range(rng.randint(2, 10)):
        r = rng.random()
        if r < 0.3:
            indent = min(indent + 2, 8)
            out.append(" " * indent + rng.choice(SUITES))
        elif r < 0.4 and indent > 2:
            indent -= 2
            out.append(" " * indent + rng.choice(SUITES))
        else:
            out.append(" " * (indent + 2) + rng.choice(["✔", "✖", "✔"]) + " " + title(rng))
        noise(rng, out)
    out.append("SUMMARY:")
    out.append("✔ 3 tests completed")
    out.append("  ✔ after summary")
    return out


def case_tap(rng):
    out = ["TAP version 13", "1..5"]
    for i in range(rng.randint(2, 8)):
        st = rng.choice(["ok", "not ok", "ok"])
        out.append(rng.choice(["", "    "]) + f"{st} {i + 1} " + rng.choice(["", "- "]) + title(rng) + rng.choice(["", " # SKIP", " # TODO"]))
        if st == "not ok" and rng.random() < 0.5:
            out += ["  ---", "  operator: equal", "  ..."]
        noise(rng, out)
    return out


def case_per_file(rng):
    """Jest's per-file lines for carbon, react-pdf, emotion, grommet, prettier, scratch-gui."""
    out = []
    for _ in range(rng.randint(2, 8)):
        f = rng.choice(FILES)
        out.append(colour(rng, rng.choice(["PASS", "FAIL", "PASS", " PASS"]) + rng.choice([" ", "  "]) + f
                          + rng.choice(["", " (1.234 s)", " (12ms)", " (5s)", " (0.9 s) extra", " (8 ms)"])))
        if rng.random() < 0.3:
            out.append("  ● " + title(rng))
        noise(rng, out)
    return out


def mocha_spec(rng, marks=("✓", "✔")):
    out = []
    n = 0
    for _ in range(rng.randint(1, 3)):
        out.append("  " + rng.choice(SUITES))
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.3:
                out.append("    " + rng.choice(SUITES))
            if rng.random() < 0.25:
                n += 1
                out.append("      " + f"{n}) " + title(rng))
            else:
                out.append(colour(rng, "      " + rng.choice(marks) + " " + title(rng) + rng.choice(["", " (5ms)", " (120ms)"])))
            noise(rng, out)
    out += ["", f"  {rng.randint(1, 9)} passing (1s)", "  1 failing", "", "  1) Suite", "       title:", "     Error: boom"]
    return out


def case_highlightjs(rng):
    return mocha_spec(rng)


def case_marked(rng):
    out = mocha_spec(rng)
    for i in range(rng.randint(0, 3)):
        out.append(f"{i + 1}) " + title(rng) + rng.choice(["", "  "]))
    return out


def case_eslint(rng):
    out = mocha_spec(rng)
    for i in range(rng.randint(1, 3)):
        out += [f"  {i + 1}) " + rng.choice(SUITES), "       " + title(rng) + ":", "",
                "      " + rng.choice(["AssertionError", "TypeError", "Error"]) + ": expected"]
    return out


def case_p5js(rng):
    out = mocha_spec(rng)
    if rng.random() < 0.5:
        out += ["{", '  "a": 1,', "}", "[1, 2]", "<div>", "3) inside xml:", "</div>"]
    for i in range(rng.randint(1, 3)):
        out += ["", f"  {i + 1}) " + rng.choice(SUITES), rng.choice(["       ", "   ", "  "]) + title(rng) + ":",
                "     Error: expected"]
    return out


def case_chart_js(rng):
    out = ["Chrome 120.0.0 (Linux x86_64): Executed 0 of 10 SUCCESS"]
    for _ in range(rng.randint(1, 6)):
        line = rng.choice(["Chrome 120.0.0.0 (Linux x86_64) ", "Chrome Headless 1.2 (Linux 0.0.0) ", "Chrome 99 (Mac OS 10.15) "]) + \
            rng.choice(SUITES) + " " + title(rng) + rng.choice([" FAILED", " FAILED", " SUCCESS", " FAILED extra"])
        out.append(colour(rng, line))
        noise(rng, out)
    return out


def case_bpmn(rng):
    out = []
    for _ in range(rng.randint(1, 6)):
        out.append(rng.choice(["\x1b[2KPhantomJS 2.1.1 (Linux 0.0.0) ", "\x1b[2KPhantomJS 2.1.1 (Linux x86_64) ",
                               "Chrome Headless 120.0 (Linux x86_64) ", "HeadlessChrome 120.0.0 (Linux 0.0.0) "])
                   + rng.choice(SUITES) + " " + title(rng) + rng.choice([" FAILED", " FAILED", " SUCCESS"]))
        noise(rng, out)
    return out


def case_openlayers(rng):
    out = []
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if r < 0.3:
            out.append(rng.choice(["Chrome Headless 120.0.0 (Linux x86_64) ", "Chrome 120.0 (Linux x86_64_v2) "])
                       + rng.choice(SUITES) + "  " + title(rng) + rng.choice([" FAILED", " SUCCESS"]))
        elif r < 0.6:
            out += [f"  {rng.randint(1, 9)}) " + rng.choice(SUITES), "       " + title(rng), "  " + rng.choice(["AssertionError", "Error"]) + ": x"]
        else:
            out.append("case " + title(rng) + rng.choice([": mismatch 0.5", ": ok"]))
        noise(rng, out)
    return out


def mocha_json(rng):
    def entry():
        return {"title": title(rng), "fullTitle": rng.choice(SUITES) + " " + title(rng), "duration": rng.randint(0, 9)}
    report = {"stats": {"tests": 3}, "tests": [], "pending": [],
              "failures": [entry() for _ in range(rng.randint(0, 2))],
              "passes": [entry() for _ in range(rng.randint(0, 3))]}
    return json.dumps(report, indent=2, ensure_ascii=rng.random() < 0.5)


def case_prismjs(rng):
    out = []
    for _ in range(rng.randint(1, 2)):
        out.append("+ ./node_modules/.bin/mocha tests/run.js --reporter json")
        out.append(mocha_json(rng))
    return out


def case_cypress(rng):
    out = []
    for _ in range(rng.randint(1, 3)):
        out.append(mocha_json(rng))
        out.append("  Running: ../../" + rng.choice(FILES))
    out.append("done")
    return out


def case_quarto(rng):
    out = []
    for _ in range(rng.randint(2, 8)):
        name = rng.choice(["[smoke] ", "[unit] "]) + rng.choice(["render ", "check "]) + \
            rng.choice(["/tmp/abc123.qmd", "/tmp/dir9/x.qmd", "docs/" + title(rng), "/tmp/abc123.qmd and /tmp/zz.qmd"])
        status = rng.choice([" ... \x1b[0m\x1b[32mok\x1b[0m \x1b[0m\x1b[38;5;245m(12ms)\x1b[0m",
                             " ... \x1b[0m\x1b[31mFAILED\x1b[0m (3ms)", " ...", " => ./tests/x.ts:1:1",
                             " \x1b[0m\x1b[34mINFO\x1b[0m", " passed 2 | failed 1 (3 steps)"])
        out.append(name + status)
        noise(rng, out)
    if rng.random() < 0.3:
        out.append(" ERRORS ")
        out.append("[smoke] after errors ... \x1b[32mok")
    return out


# --- C, C++ -----------------------------------------------------------------------------------


def case_redis(rng):
    out = ["Cleanup: may take some time... OK"]
    for _ in range(rng.randint(2, 8)):
        st = rng.choice(["ok", "err", "skip", "ignore", "ok", "exception"])
        t = title(rng)
        if st == "err" and rng.random() < 0.6:
            t += " in tests/unit/" + rng.choice(["type/list.tcl", "info.tcl"])
        out.append(colour(rng, f"[{st}]: {t}" + rng.choice(["", " (3 ms)", " (12ms)", " (1 s)"])))
        noise(rng, out)
    out.append("\\o/ All tests passed without errors!")
    return out


def case_jq(rng):
    out = []
    for _ in range(rng.randint(2, 8)):
        out.append(rng.choice(["", "  "]) + rng.choice(["PASS", "FAIL", "XFAIL", "SKIP"]) + ": " + rng.choice(["tests/jqtest", "tests/shtest", "tests/" + title(rng)]))
        noise(rng, out)
    out.append("# TOTAL: 3")
    return out


def case_doctest(rng):
    from xml.sax.saxutils import quoteattr
    cases = []
    for _ in range(rng.randint(1, 4)):
        subs = []
        for _ in range(rng.randint(1, 3)):
            exprs = "".join(f'<Expression success={quoteattr(rng.choice(["true", "true", "false"]))} type="CHECK"><Original>a == b</Original></Expression>'
                            for _ in range(rng.randint(0, 2)))
            name = quoteattr(title(rng)) if rng.random() < 0.9 else None
            subs.append(f"<SubCase {'name=' + name if name else ''} filename=\"t.cpp\" line=\"3\">{exprs}"
                        + ("<SubCase name=\"inner\">" + exprs + "</SubCase>" if rng.random() < 0.2 else "") + "</SubCase>")
        cases.append(f"<TestCase name={quoteattr(rng.choice(SUITES) + ' ' + title(rng))} filename=\"t.cpp\" line=\"1\">{''.join(subs)}"
                     f"<OverallResultsAsserts successes=\"1\" failures=\"0\"/></TestCase>")
    xml = '<doctest binary="./test" version="2.4.11"><Options order_by="file"/><TestSuite>' + "".join(cases) + "</TestSuite></doctest>"
    out = ["[doctest] doctest version is 2.4.11", '<?xml version="1.0" encoding="UTF-8"?>', xml]
    if rng.random() < 0.3:
        out.append("<doctest binary=\"./second\"><TestSuite/></doctest>")
    return out


def case_micropython(rng):
    out = ["platform=linux arch=x64"]
    for _ in range(rng.randint(2, 8)):
        out.append(rng.choice(["pass ", "FAIL ", "skip ", "pass  ", "lrun "]) + rng.choice(["basics/", "extmod/", "micropython/"]) + rng.choice(["list1.py", "str_é.py", "a b.py"]))
        noise(rng, out)
    out.append("12 tests performed (345 individual testcases)")
    return out


def case_googletest(rng):
    out = ["[==========] Running 5 tests from 2 test suites."]
    for _ in range(rng.randint(2, 8)):
        name = rng.choice(["format_test.", "ranges_test.", "Ünï.", "Suite/Param."]) + rng.choice(["escape", "join", "fill/0", "width"])
        out.append("[ RUN      ] " + name)
        noise(rng, out)
        out.append(colour(rng, rng.choice(["[       OK ] ", "[  FAILED  ] ", "[  SKIPPED ] "]) + name + rng.choice([" (0 ms)", " (12 ms)", "", ", where GetParam() = 4 (1 ms)"])))
    out.append("[  FAILED  ] 1 test, listed below:")
    return out


# --- Go, Rust -------------------------------------------------------------------------------


def case_gotest(rng):
    out = ["=== RUN   TestParse"]
    for _ in range(rng.randint(2, 8)):
        name = rng.choice(["TestParse", "TestÜnï", "TestServer/with_space", "TestA/sub/deeper#01", "Test(x)"])
        out.append(colour(rng, rng.choice(["", "    ", "\t"]) + "--- " + rng.choice(["PASS", "FAIL", "SKIP"]) + ": " + name + rng.choice([" (0.00s)", " (1.23s)", " (0.0s) (x)", ""])))
        noise(rng, out)
    out += ["FAIL", "ok  \tgithub.com/x/y\t0.01s"]
    return out


def case_cargo(rng):
    out = ["running 5 tests"]
    for _ in range(rng.randint(2, 8)):
        name = rng.choice(["tests::parse", "ünï::case", "a::b::c", "it_works - should panic", "x"])
        out.append(colour(rng, rng.choice(["", "  "]) + "test " + name + rng.choice([" ... ok", " ... FAILED", " ... ignored", " ... ignored, slow", " ...  ok", " ... bench:  1 ns/iter"])))
        noise(rng, out)
    out.append("test result: FAILED. 1 passed; 1 failed; 0 ignored")
    return out


# --- Java -----------------------------------------------------------------------------------


def java_test(rng):
    return rng.choice(["com.google.gson.JsonTest#testA", "org.apache.druid.QueryTest", "ÜnïTest#m", "a.B#c+d"])


def case_maven(rng):
    out = []
    pending = 0
    for _ in range(rng.randint(2, 8)):
        r = rng.random()
        if r < 0.5:
            out.append("+ mvn test -B -Dtest=" + java_test(rng) + rng.choice(["", " -DfailIfNoTests=false", " -Dtest=Other#x"]))
            pending += 1
        else:
            out.append(rng.choice(["[INFO] ", "[ERROR] ", ""]) + "BUILD " + rng.choice(["SUCCESS", "FAILURE"]) + rng.choice(["", "", " "]))
        noise(rng, out)
    return out


def case_ant(rng):
    out = []
    for _ in range(rng.randint(2, 8)):
        out.append(rng.choice(["    ", ""]) + "[junit] " + rng.choice(["[PASS] ", "[FAIL] ", "[ERR] ", "[SKIP] "]) + java_test(rng))
        noise(rng, out)
    return out


def case_gradle(rng):
    out = []
    for _ in range(rng.randint(2, 10)):
        name = rng.choice(["org.apache.lucene.TestX > testA", "io.reactivex.FlowableTest > testÜ", "a > b c", "> prompt"])
        r = rng.random()
        if r < 0.5:
            out.append(name + rng.choice([" PASSED", " FAILED", "  PASSED", " SKIPPED"]))
        else:
            out.append(name)
            if rng.random() < 0.5:
                out.append("WARNING: interleaved output")
            out.append(rng.choice(["PASSED", "FAILED", "  PASSED  ", "SKIPPED"]))
        noise(rng, out)
    return out


# --- PHP, Ruby ------------------------------------------------------------------------------


def case_phpunit(rng):
    out = ["PHPUnit 10.5.0 by Sebastian Bergmann and contributors."]
    if rng.random() < 0.2:
        out.append(" ✔ before any suite")
    for _ in range(rng.randint(1, 3)):
        out.append(rng.choice(["Spreadsheet", "Date Time", "Ünï"]) + " (" + rng.choice(["Tests\\SpreadsheetTest", "Carbon\\Tests\\X"]) + ")")
        for _ in range(rng.randint(1, 4)):
            out.append(" " + rng.choice(["✔", "✘", "↩", "✔"]) + rng.choice([" ", "  ", ""]) + title(rng))
            noise(rng, out)
        out.append("")
    return out


def case_minitest(rng):
    out = ["Run options: --seed 1234", "# Running:"]
    for _ in range(rng.randint(2, 8)):
        out.append(rng.choice(["TestSite#test_", "TestFilters#test_", "Ünï#test_"]) + rng.choice(["render", "a. b", "x"]) + ". = " + rng.choice(["0.01 s = .", "0.00 s = F", "0.02 s = E", "1.0 s = S"]))
        noise(rng, out)
    return out


def case_cucumber(rng):
    out = []
    for _ in range(rng.randint(2, 8)):
        out.append(rng.choice(["features/site.feature:3 ", "Rendering a page ", "Ünï scenario "]) + rng.choice([".....", "...F", "..", ".-", " ..."]))
        noise(rng, out)
    return out


def case_ruby_unit(rng):
    out = []
    for _ in range(rng.randint(2, 8)):
        out.append(rng.choice(["", "  ", "test: "]) + rng.choice(["TestConfig#test_a", "test_ünï(Suite)", "a: b"]) + ":" + rng.choice(["\t", " ", "   "]) + rng.choice([".", "E", "F", "O", "Ex", "E:", "N"]) + rng.choice(["", ": (0.01)"]))
        noise(rng, out)
    return out


def case_rspec(rng):
    out = []
    for _ in range(rng.randint(2, 8)):
        out.append(rng.choice(["", "  "]) + rng.choice(["Fastlane::Action works", "RuboCop::Cop ünï - x", "fpm - a"]) + " - " + rng.choice(["passed", "failed", "pending", "passedX"]))
        noise(rng, out)
    return out


GENERATORS = {
    "parse_log_calypso": case_calypso, "parse_log_chart_js": case_chart_js, "parse_log_marked": case_marked,
    "parse_log_p5js": case_p5js, "parse_log_react_pdf": case_per_file, "parse_log_jest": case_jest,
    "parse_log_jest_json": case_jest_json, "parse_log_vitest": case_vitest, "parse_log_karma": case_karma,
    "parse_log_tap": case_tap, "parse_log_bpmn_js": case_bpmn, "parse_log_carbon": case_per_file,
    "parse_log_eslint": case_eslint, "parse_log_grommet": case_per_file, "parse_log_highlightjs": case_highlightjs,
    "parse_log_openlayers": case_openlayers, "parse_log_prismjs": case_prismjs, "parse_log_quarto_cli": case_quarto,
    "parse_log_cypress": case_cypress, "parse_log_emotion": case_per_file, "parse_log_prettier": case_per_file,
    "parse_log_scratch_gui": case_per_file, "parse_log_lighthouse_jest": case_per_file,
    "parse_log_redis": case_redis, "parse_log_jq": case_jq, "parse_log_doctest": case_doctest,
    "parse_log_micropython_test": case_micropython, "parse_log_googletest": case_googletest,
    "parse_log_gotest": case_gotest, "parse_log_cargo": case_cargo, "parse_log_maven": case_maven,
    "parse_log_ant": case_ant, "parse_log_gradle_custom": case_gradle, "parse_log_phpunit": case_phpunit,
    "parse_log_minitest": case_minitest, "parse_log_cucumber": case_cucumber, "parse_log_ruby_unit": case_ruby_unit,
    "parse_log_rspec_transformed_json": case_rspec,
}

CASES_PER_PARSER = 12


def cases(parser, rng):
    gen = GENERATORS[parser]
    out = [("empty", "")]
    for i in range(CASES_PER_PARSER):
        body = gen(rng)
        if i % 4 == 3:
            # A log reported twice (a rerun) and interleaved with its own noise.
            body = body + ["+ rerun"] + gen(rng)
        out.append((f"case{i:02d}", end(rng, body)))
    return out
