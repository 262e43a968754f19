package swebench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/swebench/logparse"
	"github.com/swe-sweep/sweep-operator/internal/testresults"
)

// The grading goldens are what SWE-bench's own grading functions returned on generated cases
// (hack/swebench-goldens/grading_goldens.py). SWEBENCH_GRADING_GOLDENS points the test at a
// batch written elsewhere, to check agreement beyond the checked-in corpus.
func officialGradingDir() string {
	if dir := os.Getenv("SWEBENCH_GRADING_GOLDENS"); dir != "" {
		return dir
	}
	return filepath.Join("testdata", "official-grading")
}

// goldenTags are the upstream tags of the goldens and the grading version each one is.
var goldenTags = []struct {
	tag     string
	version GradingVersion
}{{"v4.1.0", V41}, {"v5.0.1", V5}}

type goldenInstance struct {
	FailToPass []string `json:"FAIL_TO_PASS"`
	PassToPass []string `json:"PASS_TO_PASS"`
	EvalType   EvalType `json:"eval_type"`
	Repo       string   `json:"repo"`
}

func (g goldenInstance) instance() Instance {
	return Instance{InstanceID: "o__r-1", Repo: g.Repo, LogParser: "parse_log_pytest", EvalType: g.EvalType,
		FailToPass: g.FailToPass, PassToPass: g.PassToPass}
}

type goldenJudged struct {
	Found       *bool             `json:"found"`
	StatusMap   logparse.Statuses `json:"status_map"`
	TestsStatus *TestsStatus      `json:"tests_status"`
	Resolution  string            `json:"resolution"`
}

// officialResolution is get_resolution_status's value for ours.
var officialResolution = map[ResolvedStatus]string{ResolvedFull: "RESOLVED_FULL", ResolvedPartial: "RESOLVED_PARTIAL", ResolvedNo: "RESOLVED_NO"}

func readGolden(t *testing.T, name string, v any) {
	t.Helper()
	path := filepath.Join(officialGradingDir(), name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: write the goldens with hack/swebench-goldens/grading_goldens.py", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// judgedDiff compares our tests_status and resolution with the official ones.
func judgedDiff(got InstanceReport, want goldenJudged) string {
	ts := TestsStatus{}
	if got.TestsStatus != nil {
		ts = *got.TestsStatus
	}
	wantTS := TestsStatus{}
	if want.TestsStatus != nil {
		wantTS = *want.TestsStatus
	}
	d := cmp.Diff(wantTS, ts)
	if officialResolution[got.Resolution] != want.Resolution {
		d += "resolution " + officialResolution[got.Resolution] + ", want " + want.Resolution + "\n"
	}
	return d
}

// agreement counts the golden cases that agree, per tag, and reports the figures.
type agreement map[string][2]int

func (a agreement) count(tag string, ok bool) {
	c := a[tag]
	c[1]++
	if ok {
		c[0]++
	}
	a[tag] = c
}

func (a agreement) log(t *testing.T, what string) {
	for _, g := range goldenTags {
		t.Logf("%s under %s: %d of %d agree", what, g.tag, a[g.tag][0], a[g.tag][1])
	}
}

func TestOfficialGradingLogsEval(t *testing.T) {
	var golden struct {
		Seed  int `json:"seed"`
		Cases []map[string]json.RawMessage
	}
	readGolden(t, "logs_eval.json", &golden)
	agree := agreement{}
	for _, c := range golden.Cases {
		var name, log string
		var gi goldenInstance
		for k, v := range map[string]any{"name": &name, "log": &log, "instance": &gi} {
			if err := json.Unmarshal(c[k], v); err != nil {
				t.Fatalf("case field %s: %v", k, err)
			}
		}
		for _, g := range goldenTags {
			var want goldenJudged
			if err := json.Unmarshal(c[g.tag], &want); err != nil || want.Found == nil {
				t.Fatalf("case %s: %s: %v", name, g.tag, err)
			}
			got, err := Grade(gi.instance(), log, g.version, GradeOptions{})
			if err != nil {
				t.Fatalf("case %s under %s: %v", name, g.version, err)
			}
			var diff string
			switch {
			case !*want.Found:
				// get_logs_eval rejected the log: a report with nothing applied, unresolved.
				if got.Error != "" || got.LogProblem == "" || got.PatchSuccessfullyApplied || got.Resolved {
					diff = "officially rejected (completed, unresolved); ours: error " + got.Error + ", log problem " + got.LogProblem
				}
			case got.LogProblem != "" || got.Error != "":
				diff = "officially graded; ours not: " + got.Error + got.LogProblem
			default:
				diff = cmp.Diff(want.StatusMap, got.Statuses, cmpEmptyStatuses) + judgedDiff(got, want)
			}
			agree.count(g.tag, diff == "")
			if diff != "" {
				t.Errorf("seed %d case %s under %s (-official +ours):\n%s\nlog:\n%q", golden.Seed, name, g.tag, diff, log)
			}
		}
	}
	agree.log(t, "get_logs_eval + verdict")
}

// cmpEmptyStatuses: an empty status map and none are the same.
var cmpEmptyStatuses = cmp.Transformer("statuses", func(s logparse.Statuses) map[string]testresults.Status {
	if len(s) == 0 {
		return nil
	}
	return s
})

func TestOfficialGradingTestsReport(t *testing.T) {
	var golden struct {
		Seed  int `json:"seed"`
		Cases []map[string]json.RawMessage
	}
	readGolden(t, "tests_report.json", &golden)
	agree := agreement{}
	for _, c := range golden.Cases {
		var name string
		var gi goldenInstance
		var ordered [][2]string
		for k, v := range map[string]any{"name": &name, "instance": &gi, "status_map": &ordered} {
			if err := json.Unmarshal(c[k], v); err != nil {
				t.Fatalf("case field %s: %v", k, err)
			}
		}
		statuses := logparse.Statuses{}
		var keys []string
		for _, kv := range ordered {
			if _, dup := statuses[kv[0]]; !dup {
				keys = append(keys, kv[0])
			}
			statuses[kv[0]] = testresults.Status(kv[1])
		}
		// The parse map's order, as the text the parser met the ids in.
		source := strings.Join(keys, "\n")
		for _, g := range goldenTags {
			var want goldenJudged
			if err := json.Unmarshal(c[g.tag], &want); err != nil {
				t.Fatalf("case %s: %s: %v", name, g.tag, err)
			}
			r := InstanceReport{InstanceID: "o__r-1", Version: g.version, Resolution: ResolvedNo}
			got := judgeRun(gi.instance(), r, statuses, officialRules(g.version, source, nil))
			diff := judgedDiff(got, want)
			agree.count(g.tag, diff == "")
			if diff != "" {
				t.Errorf("seed %d case %s under %s, status map %v (-official +ours):\n%s", golden.Seed, name, g.tag, ordered, diff)
			}
		}
	}
	agree.log(t, "get_eval_tests_report + get_resolution_status")
}

func TestOfficialGradingRunReport(t *testing.T) {
	var golden struct {
		Seed  int `json:"seed"`
		Cases []map[string]json.RawMessage
	}
	readGolden(t, "run_report.json", &golden)
	agree := agreement{}
	for _, c := range golden.Cases {
		var name string
		var dataset []string
		var preds []Prediction
		var outcomes map[string]string
		for k, v := range map[string]any{"name": &name, "dataset": &dataset, "predictions": &preds, "outcomes": &outcomes} {
			if err := json.Unmarshal(c[k], v); err != nil {
				t.Fatalf("case field %s: %v", k, err)
			}
		}
		var instances []Instance
		for _, id := range dataset {
			instances = append(instances, Instance{InstanceID: id})
		}
		var reports []InstanceReport
		for id, outcome := range outcomes {
			switch outcome {
			case "resolved", "unresolved":
				reports = append(reports, InstanceReport{InstanceID: id, Resolved: outcome == "resolved"})
			default:
				reports = append(reports, InstanceReport{InstanceID: id, Error: "the tests timed out"})
			}
		}
		for _, g := range goldenTags {
			if string(c[g.tag]) == "null" {
				continue // make_run_report cannot run without a prediction
			}
			var want CampaignReport
			if err := json.Unmarshal(c[g.tag], &want); err != nil {
				t.Fatalf("case %s: %s: %v", name, g.tag, err)
			}
			want.GradingVersion = g.version
			got := RunReport(instances, preds, reports, g.version)
			diff := cmp.Diff(want, got)
			agree.count(g.tag, diff == "")
			if diff != "" {
				t.Errorf("seed %d case %s under %s (-official +ours):\n%s", golden.Seed, name, g.tag, diff)
			}
		}
	}
	agree.log(t, "make_run_report")
}
