"""SWE-bench's spec facts and eval scripts, read from the official harness.

    specs_data.py specs SWEBENCH_GIT OUT_JSON
        writes the spec data file (internal/swebench/specs/specs.json): per repository its
        language, its log parser in each tag, and per version what the specs say (test_cmd,
        install, eval_commands, pre_install, build, packages, ...), each entry naming the tag
        and file it came from; plus the patch-apply methods, fail-only repositories and
        non-test extensions of each tag.

    specs_data.py evalscripts SWEBENCH_GIT INSTANCES_JSON OUT_DIR
        writes one eval-script golden per instance of INSTANCES_JSON (a list of instances in
        the datasets' schema) to OUT_DIR/<instance_id>.json: the script that v4.1.0's
        make_eval_script_list builds (as TestSpec.eval_script renders it), and the one v5.0.1's
        make_test_spec runs for an instance whose eval_script field is that script.

SWEBENCH_GIT is a git directory (bare or not) or a URL of SWE-bench/SWE-bench with the tags
v4.1.0 and v5.0.1; they are extracted into a temporary directory outside the repository.
Run with Debian's python3 (apt-get install -y python3-unidiff: the harness reads test patches
with unidiff). The harness modules are loaded by file path; the third-party modules they import
at the top (requests, datasets, docker, ...) and that the functions called here never use are
inert stubs, so nothing is fetched.
"""

import ast
import importlib.util
import json
import re
import os
import subprocess
import sys
import tempfile
import types

TAGS = ("v4.1.0", "v5.0.1")
LANG_FILES = ["c", "go", "java", "javascript", "php", "python", "ruby", "rust"]
# Spec keys carried into the data file; the rest of a spec (none today) would be an error, so a
# new key upstream is noticed when the file is regenerated.
SPEC_KEYS = {
    "test_cmd", "install", "pre_install", "eval_commands", "build", "python", "packages",
    "pip_packages", "apt-pkgs", "docker_specs", "nano_cpus", "execute_test_as_nonroot", "no_use_env",
}


def extract(src, tmp):
    """Extracts each tag's swebench/ into tmp/<tag>; returns {tag: (dir, commit)}."""
    gitdir = None
    for args in (["git", "--git-dir", src, "rev-parse", "--git-dir"], ["git", "-C", src, "rev-parse", "--absolute-git-dir"]):
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode == 0:
            gitdir = src if "--git-dir" in args else r.stdout.strip()
            break
    if gitdir is None:
        gitdir = os.path.join(tmp, "swebench.git")
        subprocess.run(["git", "clone", "--quiet", "--bare", "--filter=blob:none", src, gitdir], check=True)
    out = {}
    for tag in TAGS:
        commit = subprocess.run(["git", "--git-dir", gitdir, "rev-parse", tag + "^{commit}"],
                                capture_output=True, text=True)
        if commit.returncode != 0:
            sys.exit(f"{src} has no tag {tag}: give a clone of SWE-bench/SWE-bench with its tags")
        d = os.path.join(tmp, tag)
        os.makedirs(d)
        archive = subprocess.run(["git", "--git-dir", gitdir, "archive", tag, "swebench"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", d], input=archive.stdout, check=True)
        out[tag] = (d, commit.stdout.strip())
    return out


class Inert:
    """Stands for anything a stub module is asked for."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return Inert()

    def __getattr__(self, name):
        return Inert()


def stub(name):
    m = types.ModuleType(name)
    m.__getattr__ = lambda attr: Inert
    sys.modules[name] = m


class CheckoutFinder:
    """Imports a checkout's own modules (those not loaded yet) from its files."""


def load_harness(root):
    """Makes root's swebench importable without running the package __init__ files that pull
    in docker and the rest; returns a function importing one module of it."""
    for name in list(sys.modules):
        if name == "swebench" or name.startswith("swebench."):
            del sys.modules[name]
    for name in ("requests", "datasets", "dotenv", "docker", "docker.errors", "tqdm", "modal", "yaml"):
        stub(name)
    for pkg in ("swebench", "swebench.harness", "swebench.harness.test_spec", "swebench.resources"):
        m = types.ModuleType(pkg)
        m.__path__ = [os.path.join(root, *pkg.split("."))]
        sys.modules[pkg] = m

    def load(name):
        if name in sys.modules and getattr(sys.modules[name], "__file__", None):
            return sys.modules[name]
        path = os.path.join(root, *name.split("."))
        if os.path.isdir(path):
            spec = importlib.util.spec_from_file_location(name, os.path.join(path, "__init__.py"), submodule_search_locations=[path])
        else:
            spec = importlib.util.spec_from_file_location(name, path + ".py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
        return mod

    class Finder(CheckoutFinder):
        def find_spec(self, name, path=None, target=None):
            if not name.startswith("swebench.") or name in sys.modules:
                return None
            base = os.path.join(root, *name.split("."))
            if os.path.isdir(base):
                return importlib.util.spec_from_file_location(name, os.path.join(base, "__init__.py"), submodule_search_locations=[base])
            if os.path.exists(base + ".py"):
                return importlib.util.spec_from_file_location(name, base + ".py")
            return None

    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, CheckoutFinder)]
    sys.meta_path.insert(0, Finder())
    return load


def dict_literals(path, prefix):
    """The module-level dict literals of path whose name starts with prefix, with their values as
    written (a parser alias stays its own name): {dict name: {key: value name}}."""
    tree = ast.parse(open(path).read())
    out = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        name = node.targets[0].id
        if not name.startswith(prefix) or not isinstance(node.value, ast.Dict):
            continue
        entries = {}
        for k, v in zip(node.value.keys, node.value.values):
            if k is None:
                continue  # a ** merge, resolved by reading the merged dicts themselves
            entries[ast.literal_eval(k)] = v.id if isinstance(v, ast.Name) else ast.unparse(v)
        out[name] = entries
    return out


def rel(tag, root, path):
    return f"{tag}:{os.path.relpath(path, root)}"


def parser_maps(tag, root):
    """{repo: {"name", "from"}} from every MAP_REPO_TO_PARSER_<LANG> of the tag's log parsers."""
    out = {}
    for lang in LANG_FILES:
        path = os.path.join(root, "swebench/harness/log_parsers", lang + ".py")
        if not os.path.exists(path):
            continue
        for entries in dict_literals(path, "MAP_REPO_TO_PARSER_").values():
            for repo, name in entries.items():
                out[repo] = {"name": name, "from": rel(tag, root, path)}
    return out


def registry(tag, root):
    path = os.path.join(root, "swebench/harness/log_parsers/__init__.py")
    lits = dict_literals(path, "PARSER_REGISTRY")
    if not lits:
        return None
    return {"from": rel(tag, root, path), "names": sorted(lits["PARSER_REGISTRY"])}


def list_literal(path, name):
    for node in ast.parse(open(path).read()).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def as_list(v):
    return [v] if isinstance(v, str) else list(v)


def spec_entry(spec, origin):
    unknown = set(spec) - SPEC_KEYS
    if unknown:
        sys.exit(f"{origin}: spec keys {sorted(unknown)} are not carried: add them to SPEC_KEYS and to internal/swebench/specs")
    e = {"from": origin}
    for key in ("test_cmd", "install", "pre_install", "eval_commands", "build", "pip_packages", "apt-pkgs"):
        if key in spec:
            e[key.replace("-", "_")] = as_list(spec[key])
    for key in ("python", "packages", "docker_specs", "nano_cpus", "execute_test_as_nonroot", "no_use_env"):
        if key in spec:
            e[key] = spec[key]
    e.update(needs(spec, origin))
    return e


# What a version needs of the grader beyond its commands, derived from the spec by the rules in
# each "_from" text (the rules are ours; the spec fields are the official ones).
PLUGIN_DIST = re.compile(r"^(pytest[-_][A-Za-z0-9_.-]+|hypothesis)(?:[<>=!~ ].*)?$")


def needs(spec, origin):
    out = {}
    plugins = [p for p in as_list(spec.get("pip_packages", [])) if PLUGIN_DIST.match(p)]
    if plugins:
        out["pytest_plugins"] = plugins
        out["pytest_plugins_from"] = (f"pip_packages of {origin}: the pytest plugin distributions the image gets "
                                      "(pytest-*, hypothesis), which pytest loads by their pytest11 entry point")
    install = " && ".join(as_list(spec.get("install", [])))
    if "pip install" in install and "--no-build-isolation" not in install:
        out["reinstall_network"] = True
        out["reinstall_network_from"] = (f"install of {origin}: pip without --no-build-isolation builds the project in an "
                                         "isolated environment and downloads its build requirements (PEP 517/518), "
                                         "and the official harness runs the eval script with the network")
    return out


def specs(src, out_path):
    with tempfile.TemporaryDirectory() as tmp:
        trees = extract(src, tmp)
        root41, commit41 = trees["v4.1.0"]
        load = load_harness(root41)
        consts = load("swebench.harness.constants")
        repos = {}
        for lang in LANG_FILES:
            path = os.path.join(root41, "swebench/harness/constants", lang + ".py")
            mod = load("swebench.harness.constants." + lang)
            for var, table in vars(mod).items():
                if not var.startswith("MAP_REPO_VERSION_TO_SPECS_"):
                    continue
                for repo, versions in table.items():
                    r = repos.setdefault(repo, {"parsers": {}, "versions": {}})
                    r["ext"] = consts.MAP_REPO_TO_EXT[repo]
                    r["ext_from"] = rel("v4.1.0", root41, os.path.join(root41, "swebench/harness/constants/__init__.py"))
                    for version, spec in versions.items():
                        r["versions"][version] = spec_entry(spec, rel("v4.1.0", root41, path))
        data = {
            "about": "SWE-bench's spec facts per repository and version, generated by hack/swebench-goldens/specs_data.py from the tags below; do not edit",
            "upstream": {tag: commit for tag, (_, commit) in trees.items()},
            "parser_registry": {},
            "patch_apply": {},
            "fail_only_repos": {},
            "non_test_exts": {},
            "repos": repos,
        }
        for tag, (root, _) in trees.items():
            for repo, ref in parser_maps(tag, root).items():
                repos.setdefault(repo, {"parsers": {}, "versions": {}})["parsers"][tag] = ref
            reg = registry(tag, root)
            if reg:
                data["parser_registry"][tag] = reg
            run = os.path.join(root, "swebench/harness/run_evaluation.py")
            data["patch_apply"][tag] = {"from": rel(tag, root, run), "methods": list_literal(run, "GIT_APPLY_CMDS")}
            init = os.path.join(root, "swebench/harness/constants/__init__.py")
            data["fail_only_repos"][tag] = {"from": rel(tag, root, init), "repos": sorted(list_literal(init, "FAIL_ONLY_REPOS"))}
            data["non_test_exts"][tag] = {"from": rel(tag, root, init), "exts": list_literal(init, "NON_TEST_EXTS")}
    with open(out_path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {out_path}: {len(repos)} repositories, {sum(len(r['versions']) for r in repos.values())} versions")


def evalscripts(src, instances_path, out_dir):
    instances = json.load(open(instances_path))
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        trees = extract(src, tmp)
        root41, commit41 = trees["v4.1.0"]
        load = load_harness(root41)
        consts = load("swebench.harness.constants")
        create = load("swebench.harness.test_spec.create_scripts")
        test_spec = load("swebench.harness.test_spec.test_spec")
        scripts41 = {}
        for inst in instances:
            specs = consts.MAP_REPO_VERSION_TO_SPECS[inst["repo"]][inst["version"]]
            # make_test_spec's own arguments for the eval script (it also builds the image
            # scripts, which fetch requirements from the network).
            lines = create.make_eval_script_list(inst, specs, "testbed", "/testbed", inst["base_commit"], inst["test_patch"])
            ts = test_spec.TestSpec(instance_id=inst["instance_id"], repo=inst["repo"], version=inst["version"],
                                    repo_script_list=[], eval_script_list=lines, env_script_list=[], arch="x86_64",
                                    FAIL_TO_PASS=[], PASS_TO_PASS=[], language=consts.MAP_REPO_TO_EXT[inst["repo"]],
                                    docker_specs={}, namespace=None)
            scripts41[inst["instance_id"]] = ts.eval_script
        root5, commit5 = trees["v5.0.1"]
        load = load_harness(root5)
        utils5 = load("swebench.harness.utils")
        scripts5 = {}
        for inst in instances:
            v5 = dict(inst, eval_script=scripts41[inst["instance_id"]], image="", log_parser="", eval_type="")
            scripts5[inst["instance_id"]] = utils5.make_test_spec(v5).eval_script
    for inst in instances:
        iid = inst["instance_id"]
        golden = {
            "upstream": {
                "v4.1.0": "swebench/harness/test_spec/create_scripts.py make_eval_script_list, rendered by swebench/harness/test_spec/test_spec.py TestSpec.eval_script",
                "v5.0.1": "swebench/harness/utils.py make_test_spec(instance with eval_script = the v4.1.0 script).eval_script",
            },
            "commits": {"v4.1.0": commit41, "v5.0.1": commit5},
            "seed": None,
            "instance": inst,
            "v4.1.0": scripts41[iid],
            "v5.0.1": scripts5[iid],
        }
        path = os.path.join(out_dir, iid + ".json")
        with open(path, "w") as f:
            json.dump(golden, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"wrote {path}")


def main(argv):
    if len(argv) == 3 and argv[0] == "specs":
        specs(argv[1], argv[2])
    elif len(argv) == 4 and argv[0] == "evalscripts":
        evalscripts(argv[1], argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
