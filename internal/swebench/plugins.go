package swebench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"slices"
	"strings"
	"time"
)

// Plugin autoload. pytest loads every installed distribution's "pytest11" entry point; a
// *.dist-info or *.egg-info the patch adds to a directory on sys.path would be one. The tests
// therefore run with PYTEST_DISABLE_PLUGIN_AUTOLOAD=1, and the plugins the image itself has
// installed are named through PYTEST_PLUGINS instead, so the official harness's plugins still
// load (astropy's pytest-astropy family, hypothesis, pytest-mock, ...). The list is read as
// root, with the image's interpreter in isolated mode, before the patch is applied.

// pytestRunner returns the command that starts pytest in testCmd ("pytest", "py.test" or the
// interpreter of "python -m pytest"), or "" when the command runs another runner (Django's
// runtests.py, sympy's bin/test, tox), which then keeps its own plugin loading.
func pytestRunner(testCmd string) string {
	fields := strings.Fields(testCmd)
	for len(fields) > 0 && strings.Contains(fields[0], "=") && !strings.HasPrefix(fields[0], "-") {
		fields = fields[1:] // VAR=value prefixes
	}
	if len(fields) == 0 {
		return ""
	}
	switch name := path.Base(fields[0]); {
	case name == "pytest" || name == "py.test" || name == "pytest-3":
		return fields[0]
	case strings.HasPrefix(name, "python") && len(fields) > 2 && fields[1] == "-m" && (fields[2] == "pytest" || fields[2] == "py.test"):
		return fields[0]
	}
	return ""
}

// setsPythonPath reports whether testCmd starts with a PYTHONPATH=... assignment.
func setsPythonPath(testCmd string) bool {
	for _, f := range strings.Fields(testCmd) {
		if !strings.Contains(f, "=") || strings.HasPrefix(f, "-") {
			return false
		}
		if strings.HasPrefix(f, "PYTHONPATH=") {
			return true
		}
	}
	return false
}

// listPluginsScript prints "<entry point name>\t<module>" for every installed pytest11 entry
// point, with importlib.metadata (Python 3.8+) or pkg_resources (older images).
const listPluginsScript = `
try:
    from importlib import metadata
    for d in metadata.distributions():
        for ep in d.entry_points:
            if ep.group == "pytest11":
                print("%s\t%s" % (ep.name, ep.value))
except ImportError:
    import pkg_resources
    for ep in pkg_resources.iter_entry_points("pytest11"):
        print("%s\t%s" % (ep.name, ep.module_name))
`

// pluginEnv is the tests' environment with plugin autoload off and the image's plugins named,
// the top-level modules of those plugins (which a patch must not shadow), and what eval.json
// says about it. When the test command does not run pytest, or the image's plugins cannot be
// listed, autoload stays as the image has it.
func (f *flow) pluginEnv(ctx context.Context) (env, modules []string, autoload string) {
	env = f.r.Env
	if env == nil {
		env = os.Environ()
	}
	env = slices.Clone(env)
	runner := pytestRunner(f.testCommand())
	if runner == "" {
		return env, nil, "as the image has it: the test command does not start pytest"
	}
	plugins, err := f.listPlugins(ctx, runner)
	if err != nil {
		fmt.Fprintf(f.pre, "[grader] could not list the image's pytest plugins, autoload stays on: %v\n", err)
		f.keepAutoload = true
		return env, nil, "on: the image's plugins could not be listed: " + err.Error()
	}
	if len(plugins) == 0 && len(f.in.Config.PytestPlugins) > 0 {
		why := fmt.Sprintf("the specs install pytest plugins (%s) but %s lists no pytest11 entry point", strings.Join(f.in.Config.PytestPlugins, ", "), runner)
		fmt.Fprintf(f.pre, "[grader] %s: autoload stays on\n", why)
		f.keepAutoload = true
		return env, nil, "on: " + why
	}
	env = slices.DeleteFunc(env, func(kv string) bool {
		return strings.HasPrefix(kv, "PYTEST_DISABLE_PLUGIN_AUTOLOAD=") || strings.HasPrefix(kv, "PYTEST_PLUGINS=")
	})
	env = append(env, "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1")
	if len(plugins) > 0 {
		env = append(env, "PYTEST_PLUGINS="+strings.Join(plugins, ","))
	}
	for _, p := range plugins {
		top, _, _ := strings.Cut(p, ".")
		if !slices.Contains(modules, top) {
			modules = append(modules, top)
		}
	}
	return env, modules, fmt.Sprintf("off; the image's plugins are named: %s", strings.Join(plugins, ", "))
}

func (f *flow) testCommand() string {
	if c := f.in.Config.TestCommand; c != "" {
		return c
	}
	return DefaultTestCommand(f.in.Instance.Repo)
}

// listPlugins finds the interpreter runner starts (after the environment setup, as root) and
// lists the pytest11 entry points it sees, as sorted, distinct module names.
func (f *flow) listPlugins(ctx context.Context, runner string) ([]string, error) {
	var out bytes.Buffer
	res, err := f.grader(ctx, "locate_pytest.sh", f.userScript("/", "command -v "+runner), &out, time.Minute)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if res.ExitCode != 0 || !path.IsAbs(lines[len(lines)-1]) {
		return nil, fmt.Errorf("%s is not on the PATH after the setup", runner)
	}
	interp := lines[len(lines)-1]
	if !strings.HasPrefix(path.Base(interp), "python") {
		// A script: its shebang names the interpreter ("#!/usr/bin/python3", "#!/usr/bin/env python").
		if interp, err = shebangInterpreter(interp); err != nil {
			return nil, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	// -I: no PYTHON* variables, no user site, no current directory on sys.path.
	cmd := exec.CommandContext(ctx, interp, "-I", "-c", listPluginsScript)
	cmd.Dir, cmd.Env = "/", f.r.Env
	listed, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", interp, err)
	}
	var modules []string
	for _, l := range strings.Split(string(listed), "\n") {
		_, value, ok := strings.Cut(l, "\t")
		module, _, _ := strings.Cut(strings.TrimSpace(value), ":")
		if ok && module != "" && !slices.Contains(modules, module) {
			modules = append(modules, module)
		}
	}
	slices.Sort(modules)
	return modules, nil
}

func shebangInterpreter(script string) (string, error) {
	file, err := os.Open(script)
	if err != nil {
		return "", err
	}
	defer func() { _ = file.Close() }() // read only
	head := make([]byte, 512)
	n, _ := io.ReadFull(file, head)
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if !strings.HasPrefix(line, "#!") || len(fields) == 0 {
		return "", fmt.Errorf("%s has no interpreter line", script)
	}
	if path.Base(fields[0]) == "env" && len(fields) > 1 {
		return exec.LookPath(fields[1])
	}
	return fields[0], nil
}
