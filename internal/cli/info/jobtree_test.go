package info

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// jobTree is one generated Harbor job tree: files by path below its root ("" content with a
// trailing "/" in the path makes a folder). deviations are the files that `sweep info` skips
// or passes over on purpose where SWE-sweep's scoring would coerce them or stop (docs/cli.md):
// the reference run of SWE-sweep's scoring sees the tree without them.
type jobTree struct {
	Name       string
	Files      map[string]string
	Deviations []string
}

// generateJobTrees makes n job trees from seed, the same trees for the same seed: several
// jobs and attempts, grader failures of both shapes, build failures with n_subtasks 0 (first
// or not), regressions, results out of bounds, partial, malformed and misplaced files,
// reward.json at several depths, config.json by task.path, task.name, missing or broken.
func generateJobTrees(seed uint64, n int) []jobTree {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	trees := make([]jobTree, 0, n)
	for i := range n {
		g := &treeGen{rng: rng, tree: jobTree{Name: fmt.Sprintf("tree-%03d", i), Files: map[string]string{}}}
		g.generate()
		trees = append(trees, g.tree)
	}
	return trees
}

type treeGen struct {
	rng  *rand.Rand
	tree jobTree
}

// taskPool has names whose order differs as strings and as path elements ("a-b" < "a/b" as
// strings, "a" < "a-b" as elements), and names shared across jobs.
var taskPool = []string{"swe-sweep__arrow", "swe-sweep__agda", "astropy", "a", "a-b", "a.b", "hello-world", "Zeta", "task_9", "task-10"}

func (g *treeGen) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }

func (g *treeGen) chance(p float64) bool { return g.rng.Float64() < p }

// used reports whether a file below dir exists already (a folder named as its task, twice).
func (g *treeGen) used(dir string) bool {
	for p := range g.tree.Files {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

func (g *treeGen) add(path, content string) { g.tree.Files[path] = content }

func (g *treeGen) deviate(path, content string) {
	g.add(path, content)
	g.tree.Deviations = append(g.tree.Deviations, path)
}

func (g *treeGen) generate() {
	jobs := 1 + g.rng.IntN(3)
	for j := range jobs {
		job := fmt.Sprintf("job-%d", j)
		if jobs == 1 && g.chance(0.2) {
			job = "" // the root is the job itself
		}
		if job != "" && g.chance(0.7) {
			g.add(job+"/config.json", `{"job_name": "`+job+`"}`)
			g.add(job+"/result.json", `{"stats": {}}`)
		}
		tasks := 1 + g.rng.IntN(5)
		for range tasks {
			task := g.pick(taskPool...)
			bugs := g.rng.IntN(40) + 1
			attempts := 1 + g.rng.IntN(4)
			for range attempts {
				g.trial(job, task, bugs)
			}
		}
		if g.chance(0.1) {
			// A stray reward.json at the job's own level: named by the root's parent.
			g.add(joinPath(job, reward.FileJSON), g.measured(3))
		}
	}
	if g.chance(0.04) {
		// Every result a grader failure: no task is graded, resolved_bugs is the integer 0.
		g.tree.Files, g.tree.Deviations = map[string]string{}, nil
		for i := range 1 + g.rng.IntN(3) {
			g.add(fmt.Sprintf("job-0/%s__%d/verifier/%s", g.pick(taskPool...), i, reward.FileJSON), g.graderFailed(5))
		}
		g.add("job-0/bare__1/verifier/"+reward.FileJSON, fmt.Sprintf(`{%q: 0, %q: 1}`, reward.KeyReward, reward.KeyGraderFailed))
	}
	if g.chance(0.03) {
		// No result at all: both tools refuse the tree.
		g.tree.Files = map[string]string{"job-0/t__1/" + "verifier/" + reward.FileText: "1\n"}
		g.tree.Deviations = nil
	}
}

func joinPath(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "/")
}

func (g *treeGen) trial(job, task string, bugs int) {
	folder := fmt.Sprintf("%s__%07x", task, g.rng.Uint32()>>4)
	if g.chance(0.05) {
		folder = task // a folder named as the task, so that the fallback name is the task
	}
	dir := joinPath(job, folder)
	if g.used(dir) {
		return
	}
	g.config(dir, task)
	if g.chance(0.6) {
		g.add(dir+"/result.json", `{"trial_name": "`+folder+`", "task_name": "`+task+`"}`)
	}
	resultDir := dir + "/verifier"
	switch r := g.rng.Float64(); {
	case r < 0.06:
		resultDir = dir // the trial folder's grandparent (the job) names it
	case r < 0.10:
		resultDir = dir + "/verifier/nested" // grandparent "verifier"
	case r < 0.12:
		resultDir = dir + "/agent/logs/deep/er"
	}
	file := resultDir + "/" + reward.FileJSON
	switch r := g.rng.Float64(); {
	case r < 0.50:
		g.add(file, g.measured(bugs))
	case r < 0.57:
		g.add(file, g.buildFailure())
	case r < 0.63:
		g.add(file, g.graderFailed(bugs))
	case r < 0.68:
		g.add(file, fmt.Sprintf(`{%q: 0, %q: 1}`, reward.KeyReward, reward.KeyGraderFailed))
	case r < 0.71:
		g.add(resultDir+"/"+reward.FileText, g.pick("0", "1", "0.5\n"))
	case r < 0.74:
		g.add(file, fmt.Sprintf(`{%q: 1}`, reward.KeyReward))
	case r < 0.78:
		g.add(file, g.partial(bugs))
	case r < 0.85:
		g.add(file, g.outOfBounds(bugs))
	case r < 0.91:
		g.add(file, g.malformedBoth(bugs))
	case r < 0.96:
		g.deviate(file, g.malformedOurs(bugs))
	case r < 0.98:
		g.add(file+"/", "") // a folder named reward.json
	default:
		// no result: not a trial for either tool
	}
}

// config writes config.json naming the task by task.path, task.name, or not at all.
func (g *treeGen) config(dir, task string) {
	file := dir + "/config.json"
	switch r := g.rng.Float64(); {
	case r < 0.45:
		g.add(file, fmt.Sprintf(`{"task": {"path": %q}, "trial_name": "x"}`, g.pick("datasets/swe-sweep/", "/abs/", "", "./")+task+g.pick("", "/", "/.")))
	case r < 0.60:
		g.add(file, fmt.Sprintf(`{"task": {"path": %s, "name": %q}}`, g.pick(`""`, "null", "0", "[]", "false"), g.pick("", "org/")+task))
	case r < 0.65:
		g.add(file, `{"task": {"name": ""}}`)
	case r < 0.70:
		g.add(file, g.pick(`{"task": null}`, `{"task": {}}`, `{"task": 0}`, `{}`, `{"task": false}`))
	case r < 0.74:
		// Broken for both: SWE-sweep passes it over too, naming the trial by its folder.
		g.add(file, g.pick(`{"task": {"path": `, "", "\xff\xfe{}", "\ufeff{\"task\": {\"path\": \"x\"}}"))
	case r < 0.78:
		// Ours passes it over with a note; SWE-sweep would coerce it or stop.
		g.deviate(file, g.pick(`[1, 2]`, `"text"`, `null`, `{"task": "x"}`, `{"task": [1]}`, `{"task": {"path": 5}}`,
			`{"task": {"path": true}}`, `{"task": {"name": ["a"]}}`, fmt.Sprintf(`{"task": {"path": %q}, "n": NaN}`, task)))
	case r < 0.80:
		g.add(file+"/", "") // a folder named config.json
	default:
		// no config.json: the trial folder names the task
	}
}

func (g *treeGen) number(v float64) string {
	switch {
	case v == float64(int64(v)) && g.chance(0.2):
		return strconv.FormatFloat(v, 'f', 1, 64) // 3.0
	case v == float64(int64(v)) && g.chance(0.05):
		return strconv.FormatFloat(v, 'e', -1, 64) // 3e+00
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func (g *treeGen) rewardValue(resolved, bugs int, visibleOK bool) string {
	if !visibleOK || bugs == 0 {
		return g.number(0)
	}
	r := float64(resolved) / float64(bugs)
	if g.chance(0.5) {
		return strconv.FormatFloat(r, 'f', 4, 64) // SWE-sweep's grader rounds to 4 places
	}
	return g.number(r)
}

// measured is a nine-key result of a graded trial, sometimes regressed.
func (g *treeGen) measured(bugs int) string {
	resolved := g.rng.IntN(bugs + 1)
	visibleOK := g.chance(0.75)
	return g.nineKeys(g.number(float64(bugs)), g.number(float64(resolved)), flagValue(visibleOK), g.rewardValue(resolved, bugs, visibleOK), g.pick("0", "0", "0", "0", "0.0", "0.5"))
}

func (g *treeGen) buildFailure() string {
	return g.nineKeys("0", "0", "0", "0", "0")
}

func (g *treeGen) graderFailed(bugs int) string {
	if g.chance(0.3) {
		// The values a failure leaves are never used, so they need not be numbers.
		return fmt.Sprintf(`{%q: null, %q: "?", %q: 0, %q: 0, %q: %s}`, reward.KeySubtasks, reward.KeyResolved,
			reward.KeyVisibleOK, reward.KeyReward, reward.KeyGraderFailed, g.pick("1", "1.0", "2"))
	}
	return g.nineKeys(g.number(float64(g.pick2(0, bugs))), "0", "0", "0", g.pick("1", "1.0", "3"))
}

func (g *treeGen) pick2(a, b int) int {
	if g.chance(0.5) {
		return a
	}
	return b
}

// partial lacks one of the four scoring keys.
func (g *treeGen) partial(bugs int) string {
	keys := []string{reward.KeySubtasks, reward.KeyResolved, reward.KeyVisibleOK, reward.KeyReward}
	drop := keys[g.rng.IntN(len(keys))]
	var parts []string
	for _, k := range keys {
		if k != drop {
			parts = append(parts, fmt.Sprintf("%q: %d", k, min(bugs, 1)))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// outOfBounds scores for SWE-sweep as it is: too many resolved, reward above 1, negative or
// fractional counts, a flag of 0.5 or 2.
func (g *treeGen) outOfBounds(bugs int) string {
	sub, res, vis, rew, gf := g.number(float64(bugs)), g.number(float64(bugs)), "1", "1", "0"
	switch g.rng.IntN(7) {
	case 0:
		res = g.number(float64(bugs * 100))
	case 1:
		rew = g.pick("1.5", "25", "-0.25")
	case 2:
		res = g.pick("-1", "-2.5")
	case 3:
		res, sub = g.pick("2.5", "0.999", "1.75"), g.pick("3.7", "4.2", "10")
	case 4:
		vis = g.pick("0.5", "2", "0.9999")
	case 5:
		gf = g.pick("0.5", "-1", "0.9999")
	case 6:
		sub = g.pick("-3", "0")
	}
	return g.nineKeys(sub, res, vis, rew, gf)
}

// malformedBoth are files both tools skip.
func (g *treeGen) malformedBoth(bugs int) string {
	good := g.measured(bugs)
	return g.pick(
		good[:len(good)/2], "", "[]", "null", `"reward"`, "3", good+" {}", "\xff"+good,
		"\ufeff"+good, strings.Replace(good, "{", "{\"note\": \"\xe9\", ", 1),
	)
}

// malformedOurs are files `sweep info` skips where SWE-sweep would coerce the value or stop.
func (g *treeGen) malformedOurs(bugs int) string {
	b := g.number(float64(bugs))
	switch g.rng.IntN(8) {
	case 0:
		return g.nineKeys(b, "1", "1", "NaN", "0")
	case 1:
		return g.nineKeys(b, "1", "true", "1", "0")
	case 2:
		return g.nineKeys(`"`+b+`"`, "1", "1", "0.5", "0")
	case 3:
		return g.nineKeys(b, "null", "1", "1", "0")
	case 4:
		return g.nineKeys("1e300", "1", "1", "1", "0")
	case 5:
		return g.nineKeys(b, "1", "1", "1", g.pick(`"1"`, "true", "null"))
	case 6:
		return g.nineKeys(b, "1", "1", "Infinity", "1")
	default:
		return g.nineKeys(b, "1", `"1"`, "1", "0")
	}
}

func (g *treeGen) nineKeys(subtasks, resolved, visibleOK, rewardValue, graderFailed string) string {
	return fmt.Sprintf(`{%q: %s, %q: %s, %q: %s, %q: 0, %q: %s, %q: 0, %q: 1, %q: 1, %q: %s}`,
		reward.KeyReward, rewardValue, reward.KeySubtasks, subtasks, reward.KeyResolved, resolved,
		reward.KeyPartial, reward.KeyVisibleOK, visibleOK, reward.KeyRegressions,
		reward.KeyPatchApplied, reward.KeyBuildOK, reward.KeyGraderFailed, graderFailed)
}

func flagValue(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
