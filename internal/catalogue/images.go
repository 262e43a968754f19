// Package catalogue turns Harbor task directories into the in-cluster task catalogue of
// docs/design.md §2: one ConfigMap per task (task.toml, instruction.md, image references, bug
// count, grader) and one per solution, written as a kustomization, with image references
// content-addressed over environment/ and tests/ so that a changed task gets a new tag.
package catalogue

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// Sub-directories of a Harbor task.
const (
	EnvironmentDir = "environment"
	TestsDir       = "tests"
	SolutionDir    = "solution"
)

// TagLength is how many hex digits of the content hash a tag carries.
const TagLength = 12

var (
	notNameChars = regexp.MustCompile(`[^a-z0-9-]+`)
	shellSafe    = regexp.MustCompile(`^[A-Za-z0-9_./:=@+-]+$`)
)

// ResourceName is a task name made fit for object names and image repositories: lower case,
// anything but letters, digits and dashes turned into a dash.
func ResourceName(task string) string {
	return strings.Trim(notNameChars.ReplaceAllStringFunc(strings.ToLower(task), func(s string) string {
		return strings.Repeat("-", len(s))
	}), "-")
}

// Role says which of a task's two images an Image is.
type Role string

const (
	RoleAgent    Role = "agent"
	RoleVerifier Role = "verifier"
)

// Image is one image a task needs and, unless it is prebuilt, how to build it.
type Image struct {
	Task string `json:"task"`
	Role Role   `json:"role"`
	Ref  string `json:"image"`
	// Build is nil for a prebuilt image (docker_image in task.toml).
	Build *Build `json:"build,omitempty"`
}

// Build is a docker build of one image.
type Build struct {
	// Context is the build context directory.
	Context string `json:"context"`
	// Dockerfile is an inline Dockerfile given on stdin; empty means the context's own.
	Dockerfile string `json:"dockerfile,omitempty"`
	// Args are the build arguments (--build-arg NAME=VALUE).
	Args map[string]string `json:"args,omitempty"`
}

// AgentImageArg is the build argument through which a task's tests/Dockerfile learns the agent
// image it is built on (`ARG AGENT_IMAGE=<default>` then `FROM ${AGENT_IMAGE}`): the agent
// image's tag is content-addressed, so the Dockerfile cannot name it.
const AgentImageArg = "AGENT_IMAGE"

// declaresAgentImageArg matches the ARG line of AgentImageArg (instructions are case-insensitive,
// argument names are not).
var declaresAgentImageArg = regexp.MustCompile(`(?m)^\s*(?i:ARG)\s+` + AgentImageArg + `(\s|=|$)`)

// Command is the shell command that builds and pushes the image.
func (i Image) Command() string {
	if i.Build == nil {
		return ""
	}
	var args strings.Builder
	for _, k := range sortedKeys(i.Build.Args) {
		fmt.Fprintf(&args, "--build-arg %s ", ShellQuote(k+"="+i.Build.Args[k]))
	}
	if i.Build.Dockerfile == "" {
		return fmt.Sprintf("docker build %s-t %s %s && docker push %s", args.String(), i.Ref, ShellQuote(i.Build.Context), i.Ref)
	}
	return fmt.Sprintf("printf %s | docker build %s-t %s -f - %s && docker push %s",
		ShellQuote(strings.ReplaceAll(i.Build.Dockerfile, "\n", `\n`)), args.String(), i.Ref, ShellQuote(i.Build.Context), i.Ref)
}

// ShellQuote quotes s for sh unless it is a plain word.
func ShellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// TaskImages are the agent and verifier images of a task. The agent image is docker_image, or
// <registry>/<name>-env:<hash of environment/>. The verifier image is
// [verifier.environment].docker_image, or <registry>/<name>-verifier:<hash of environment/ and
// tests/>: built from tests/ when it has a Dockerfile (Harbor's separate verifier), else the
// agent image with tests/ at /tests.
func TaskImages(d *taskdef.Dir, registry string) ([]Image, error) {
	t := d.Task
	name := ResourceName(t.Name)
	registry = strings.TrimRight(registry, "/")
	needRegistry := func(what string) error {
		if registry != "" {
			return nil
		}
		return fmt.Errorf("task %s: its %s image is built from the task directory, so it needs a registry: pass --registry (for example --registry ghcr.io/you/tasks) or set docker_image in %s",
			t.Name, what, filepath.Join(d.Path, "task.toml"))
	}
	agent := Image{Task: t.Name, Role: RoleAgent, Ref: t.Environment.DockerImage}
	envDir := filepath.Join(d.Path, EnvironmentDir)
	if agent.Ref == "" {
		if _, err := os.Stat(filepath.Join(envDir, "Dockerfile")); err != nil {
			return nil, fmt.Errorf("task %s: no %s and no [environment].docker_image: add the Dockerfile or name a prebuilt image",
				t.Name, filepath.Join(envDir, "Dockerfile"))
		}
		if err := needRegistry("agent"); err != nil {
			return nil, err
		}
		sum, err := treeHash(map[string]string{EnvironmentDir: envDir})
		if err != nil {
			return nil, err
		}
		agent.Ref = fmt.Sprintf("%s/%s-env:%s", registry, name, sum[:TagLength])
		agent.Build = &Build{Context: envDir}
	}
	verifier := Image{Task: t.Name, Role: RoleVerifier}
	if e := t.Verifier.Environment; e != nil && e.DockerImage != "" {
		verifier.Ref = e.DockerImage
		return []Image{agent, verifier}, nil
	}
	testsDir := filepath.Join(d.Path, TestsDir)
	if _, err := os.Stat(testsDir); err != nil {
		return nil, fmt.Errorf("task %s: no %s: the verifier image holds the hidden tests; add tests/ (with test.sh) or set [verifier.environment].docker_image",
			t.Name, testsDir)
	}
	if err := needRegistry("verifier"); err != nil {
		return nil, err
	}
	// The agent image's reference stands for environment/ when it is prebuilt.
	sum, err := treeHash(map[string]string{EnvironmentDir: envDir, TestsDir: testsDir}, "docker_image="+t.Environment.DockerImage)
	if err != nil {
		return nil, err
	}
	verifier.Ref = fmt.Sprintf("%s/%s-verifier:%s", registry, name, sum[:TagLength])
	verifier.Build = &Build{Context: testsDir}
	dockerfile, err := os.ReadFile(filepath.Join(testsDir, "Dockerfile"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		verifier.Build.Dockerfile = "FROM " + agent.Ref + "\nCOPY . /tests\n"
	case err != nil:
		return nil, fmt.Errorf("task %s: %w", t.Name, err)
	case declaresAgentImageArg.Match(dockerfile):
		verifier.Build.Args = map[string]string{AgentImageArg: agent.Ref}
	}
	return []Image{agent, verifier}, nil
}

// treeHash is the sha256 over the named trees (name → directory; a missing directory is
// empty) and extra strings: each file's path under its name, its executable bit and its
// content, in path order, so that the hash depends on what a build sees and not on
// timestamps, owners or the checkout's umask.
func treeHash(trees map[string]string, extra ...string) (string, error) {
	h := sha256.New()
	for _, e := range extra {
		fmt.Fprintf(h, "extra\x00%s\x00", e)
	}
	for _, name := range []string{EnvironmentDir, TestsDir} {
		dir, ok := trees[name]
		if !ok {
			continue
		}
		if err := hashTree(h, name, dir); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashTree(h hash.Hash, name, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(filepath.Join(name, rel))
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "link\x00%s\x00%s\x00", key, target)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "file\x00%s\x00%t\x00%d\x00", key, info.Mode()&0o111 != 0, info.Size())
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(h, f)
			return errors.Join(err, f.Close())
		}
		return nil
	})
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
