"""Writes one golden file per SWE-bench log parser: the official parse map of every tag given
with --checkout on every log of a corpus generated from --seed.

The corpus generators are the corpus_*.py files next to this script (one per family of
parsers); each defines

    PARSERS: list of parser names (the names of SWE-bench's parser registry, aliases included)
    cases(parser: str, rng: random.Random) -> list of (case name, log)

The parser functions are loaded by file path from each checkout: SWE-bench's package
__init__ files (which import docker, datasets, ...) are not run, and third-party modules that
are not installed are replaced by inert stubs, because the parsers never use them.
"""

import argparse
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import random
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))

# Where a parser function may be defined, per layout of the harness; the first file that
# defines the name wins.
PARSER_FILES = [
    "swebench/harness/log_parsers/python.py",
    "swebench/harness/log_parsers/javascript.py",
    "swebench/harness/log_parsers/c.py",
    "swebench/harness/log_parsers/go.py",
    "swebench/harness/log_parsers/java.py",
    "swebench/harness/log_parsers/php.py",
    "swebench/harness/log_parsers/ruby.py",
    "swebench/harness/log_parsers/rust.py",
    "swebench/harness/log_parsers.py",
]

# Packages whose __init__ is run (pure data the parsers import, e.g. TestStatus); every other
# package of the checkout is an empty namespace.
RUN_INIT = {"swebench.harness.constants"}

# Modules replaced by stubs even though the checkout has them: they only provide type hints to
# the parsers and import half the harness.
STUBBED = {"swebench.types", "swebench.harness.test_spec", "swebench.harness.test_spec.test_spec"}


class _Inert:
    """Stands for anything a stub module is asked for."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return _Inert()

    def __getattr__(self, name):
        return _Inert()

    def __mro_entries__(self, bases):
        return (object,)


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Inert


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        pass


class _EmptyPackageLoader(importlib.abc.Loader):
    def __init__(self, path):
        self.path = path

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__path__ = [self.path]


class CheckoutFinder(importlib.abc.MetaPathFinder):
    """Imports swebench.* from one checkout."""

    def __init__(self, root):
        self.root = root

    def find_spec(self, name, path=None, target=None):
        if name != "swebench" and not name.startswith("swebench."):
            return None
        if name in STUBBED:
            return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)
        base = os.path.join(self.root, *name.split("."))
        init = os.path.join(base, "__init__.py")
        if os.path.isfile(init):
            if name in RUN_INIT:
                return importlib.util.spec_from_file_location(name, init, submodule_search_locations=[base])
            return importlib.machinery.ModuleSpec(name, _EmptyPackageLoader(base), is_package=True)
        if os.path.isfile(base + ".py"):
            return importlib.util.spec_from_file_location(name, base + ".py")
        return None


class StubFinder(importlib.abc.MetaPathFinder):
    """Last on the path: a module that the checkout's code imports and that is not installed is
    an inert stub. Imports by anything else (the standard library's optional imports) fail as
    usual."""

    def __init__(self, root):
        self.root = os.path.join(os.path.abspath(root), "")

    def find_spec(self, name, path=None, target=None):
        frame = sys._getframe(1)
        while frame is not None and "importlib" in frame.f_code.co_filename:
            frame = frame.f_back
        if frame is None or not os.path.abspath(frame.f_code.co_filename).startswith(self.root):
            return None
        return importlib.machinery.ModuleSpec(name, _StubLoader(), is_package=True)


def load_parsers(root):
    """Returns {name: (file, function)} for every function in PARSER_FILES of the checkout."""
    for mod in [m for m in sys.modules if m == "swebench" or m.startswith("swebench.")]:
        del sys.modules[mod]
    finder = CheckoutFinder(root)
    stub = StubFinder(root)
    sys.meta_path.insert(0, finder)
    sys.meta_path.append(stub)
    try:
        found = {}
        for rel in PARSER_FILES:
            if not os.path.isfile(os.path.join(root, rel)):
                continue
            name = rel[: -len(".py")].replace("/", ".")
            module = importlib.import_module(name)
            for attr, value in vars(module).items():
                if attr.startswith("parse_log_") and callable(value) and attr not in found:
                    found[attr] = (rel, value)
        return found
    finally:
        sys.meta_path.remove(finder)
        sys.meta_path.remove(stub)


def corpus_modules():
    mods = []
    for fname in sorted(os.listdir(HERE)):
        if fname.startswith("corpus_") and fname.endswith(".py"):
            spec = importlib.util.spec_from_file_location(fname[:-3], os.path.join(HERE, fname))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            mods.append(mod)
    return mods


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkout", action="append", required=True, metavar="TAG=DIR")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    tags = []
    for c in args.checkout:
        tag, _, root = c.partition("=")
        tags.append((tag, load_parsers(root)))

    sys.path.insert(0, HERE)
    seen = set()
    for mod in corpus_modules():
        for parser in mod.PARSERS:
            if parser in seen:
                sys.exit(f"{mod.__name__}: parser {parser} is already generated by another corpus file")
            seen.add(parser)
            # Each parser draws from its own stream, so adding a parser or a corpus file leaves
            # the other goldens unchanged.
            rng = random.Random(f"{args.seed}/{parser}")
            upstream = {tag: (f"{fns[parser][0]}:{parser}" if parser in fns else "") for tag, fns in tags}
            if not any(upstream.values()):
                sys.exit(f"{mod.__name__}: no checkout defines {parser}")
            cases = []
            names = set()
            raised = 0
            for name, log in mod.cases(parser, rng):
                if name in names:
                    sys.exit(f"{mod.__name__}: {parser}: two cases named {name!r}")
                names.add(name)
                case = {"name": name, "log": log}
                try:
                    for tag, fns in tags:
                        case[tag] = None
                        if parser in fns:
                            got = fns[parser][1](log, types.SimpleNamespace(log_parser=parser))
                            case[tag] = {k: got[k] for k in sorted(got)}
                except Exception:
                    # A log on which an official parser raises has no parse map to compare;
                    # the count is printed so that a corpus can be tuned to avoid them.
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
