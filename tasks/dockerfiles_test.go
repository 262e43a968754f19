package tasks

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/catalogue"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// There is no Docker here to build the sample tasks' Dockerfiles, so this test holds them to
// what hack/images.sh builds without Docker, reading both: the same Debian suite and packages,
// the same git configuration, locale and baseline commit, the repository at the task's workdir
// and the tests at /tests.

// imageRecipe is what hack/images.sh puts into a task's images.
type imageRecipe struct {
	suite      string
	packages   []string
	gitconfig  string // the printf format of /etc/gitconfig
	env        string // the python-base image's environment
	commitEnv  string // the dates of the baseline commit
	testsPath  string // where the verifier image holds tests/
	repoSource string // where the repository is found in a task directory
}

func readImageRecipe(t *testing.T) imageRecipe {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "hack", "images.sh"))
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	find := func(what, pattern string) []string {
		m := regexp.MustCompile(pattern).FindStringSubmatch(script)
		if m == nil {
			t.Fatalf("hack/images.sh: cannot find %s (pattern %s): update this test with the script", what, pattern)
		}
		return m[1:]
	}
	deboot := find("debootstrap's suite and --include list", `debootstrap --variant=minbase --include=(\S+) (\S+) `)
	pkgs := strings.Split(deboot[0], ",")
	slices.Sort(pkgs)
	dates := find("the baseline commit's dates", `export (GIT_AUTHOR_DATE=\S+ GIT_COMMITTER_DATE=\S+)`)
	find("the baseline tag", `(tag) baseline`)
	return imageRecipe{
		suite: deboot[1], packages: pkgs,
		gitconfig:  find("/etc/gitconfig", `printf '([^']*)' > "\$r/etc/gitconfig"`)[0],
		env:        find("python-base's environment", `image_python_base\(\) \{[^}]*-env (\S+)`)[0],
		commitEnv:  dates[0],
		testsPath:  find("the verifier's tests layer", `-layer "\$tests:([^"]+)"`)[0],
		repoSource: find("the task's repository", `for c in "\$dir/(environment/repo)"`)[0],
	}
}

// instruction is one Dockerfile instruction: its keyword (upper case) and the rest of its
// line, continuation lines joined.
type instruction struct{ keyword, args string }

func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if strings.HasSuffix(trimmed, `\`) {
			cur.WriteString(strings.TrimSuffix(trimmed, `\`) + " ")
			continue
		}
		cur.WriteString(trimmed)
		keyword, args, _ := strings.Cut(cur.String(), " ")
		out = append(out, instruction{strings.ToUpper(keyword), strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() > 0 {
		t.Fatalf("%s: the last instruction ends with a line continuation", path)
	}
	return out
}

// aptPackages are the packages an apt-get install in args names, sorted.
func aptPackages(args string) []string {
	_, rest, ok := strings.Cut(args, "apt-get install")
	if !ok {
		return nil
	}
	rest, _, _ = strings.Cut(rest, "&&")
	var pkgs []string
	for _, w := range strings.Fields(rest) {
		if !strings.HasPrefix(w, "-") {
			pkgs = append(pkgs, w)
		}
	}
	slices.Sort(pkgs)
	return pkgs
}

// sampleTaskDirs are the directories of tasks/ with a task.toml.
func sampleTaskDirs(t *testing.T) []string {
	t.Helper()
	matches, err := filepath.Glob("*/task.toml")
	if err != nil || len(matches) == 0 {
		t.Fatalf("no sample tasks under tasks/ (%v)", err)
	}
	var dirs []string
	for _, m := range matches {
		dirs = append(dirs, filepath.Dir(m))
	}
	return dirs
}

func TestDockerfilesMatchHackImages(t *testing.T) {
	recipe := readImageRecipe(t)
	for _, dir := range sampleTaskDirs(t) {
		t.Run(dir, func(t *testing.T) {
			d, err := taskdef.LoadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			workdir := d.Task.Environment.Workdir
			if workdir == "" {
				t.Fatalf("%s/task.toml: no [environment] workdir; hack/images.sh would use /app", dir)
			}
			if _, err := os.Stat(filepath.Join(dir, recipe.repoSource)); err != nil {
				t.Fatalf("hack/images.sh builds the repository from %s: %v", recipe.repoSource, err)
			}
			checkAgentDockerfile(t, filepath.Join(dir, catalogue.EnvironmentDir, "Dockerfile"), recipe, workdir)
			checkVerifierDockerfile(t, filepath.Join(dir, catalogue.TestsDir, "Dockerfile"), recipe, dir)

			// `sweep tasks images` builds that Dockerfile on the agent image it builds itself.
			images, err := catalogue.TaskImages(d, "reg.example")
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{catalogue.AgentImageArg: images[0].Ref}
			if diff := cmp.Diff(want, images[1].Build.Args); diff != "" {
				t.Errorf("the verifier's build arguments (-want +got):\n%s", diff)
			}
		})
	}
}

// checkAgentDockerfile holds environment/Dockerfile to python-base plus the repository at the
// workdir, committed and tagged baseline (hack/images.sh's python_rootfs and task_images).
func checkAgentDockerfile(t *testing.T, path string, recipe imageRecipe, workdir string) {
	t.Helper()
	var from, copyArgs, workdirArg, env string
	var pkgs []string
	var gitconfig, baseline bool
	for _, in := range parseDockerfile(t, path) {
		switch in.keyword {
		case "FROM":
			from = in.args
		case "ENV":
			env = in.args
		case "COPY":
			copyArgs = in.args
		case "WORKDIR":
			workdirArg = in.args
		case "RUN":
			if p := aptPackages(in.args); p != nil {
				pkgs = p
			}
			gitconfig = gitconfig || strings.Contains(in.args, "printf '"+recipe.gitconfig+"' > /etc/gitconfig")
			baseline = baseline || (strings.Contains(in.args, "git init") && strings.Contains(in.args, "git add -A") &&
				strings.Contains(in.args, recipe.commitEnv+" git commit") && strings.Contains(in.args, "git tag baseline"))
		}
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"the base image (debootstrap's suite)", from, "debian:" + recipe.suite + "-slim"},
		{"the packages (debootstrap --include)", pkgs, recipe.packages},
		{"/etc/gitconfig as python_rootfs writes it", gitconfig, true},
		{"the environment of python-base", env, recipe.env},
		{"the repository copied to the workdir", copyArgs, "repo/ " + workdir + "/"},
		{"the working directory", workdirArg, workdir},
		{"the baseline commit, its dates and its tag", baseline, true},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s: %s differs from hack/images.sh (-images.sh +Dockerfile):\n%s", path, c.what, diff)
		}
	}
}

// checkVerifierDockerfile holds tests/Dockerfile to the agent image plus tests/ at /tests
// (hack/images.sh's verifier image), with the packages the graders run.
func checkVerifierDockerfile(t *testing.T, path string, recipe imageRecipe, dir string) {
	t.Helper()
	ins := parseDockerfile(t, path)
	var pkgs []string
	for _, in := range ins {
		if in.keyword == "RUN" {
			if p := aptPackages(in.args); p != nil {
				pkgs = p
			}
		}
	}
	var got []instruction
	for _, in := range ins {
		if in.keyword != "RUN" {
			got = append(got, in)
		}
	}
	want := []instruction{
		{"ARG", catalogue.AgentImageArg + "=sweep-samples/" + dir + ":env"},
		{"FROM", "${" + catalogue.AgentImageArg + "}"},
		{"COPY", ". " + recipe.testsPath},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(instruction{})); diff != "" {
		t.Errorf("%s: its instructions but RUN differ from the agent image plus tests/ at %s (-want +got):\n%s", path, recipe.testsPath, diff)
	}
	if diff := cmp.Diff(recipe.packages, pkgs); diff != "" {
		t.Errorf("%s: the grader's packages differ from hack/images.sh's debootstrap --include (-images.sh +Dockerfile):\n%s", path, diff)
	}
}
