package get_test

import (
	"context"
	"strings"
	"testing"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/get"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestGet(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	nightly := clitest.MakeRun(ns, "nightly").Tasks("demo").Create(t, srv.Client)
	clitest.MakeRun(ns, "weekly").Tasks("demo").Create(t, srv.Client)
	trial := clitest.MakeTrial(nightly, "demo", 1).Phase(evalv1.TrialSucceeded).Create(t, srv.Client)
	sweepGet := func(format, run string, args ...string) (string, string, error) {
		printer := clioptions.NewTablePrintFlags()
		*printer.Print.OutputFormat = format
		return clitest.Execute(context.Background(), &get.Options{Cluster: srv.Cluster(ns), Print: printer, SweepRun: run}, args...)
	}
	for _, tc := range []struct {
		name, format, run string
		args              []string
		want              []string
		not               []string
	}{
		{"table", "", "", []string{"sr"}, []string{"NAME      PHASE", "TRIALS", "SCORE", "AGE\n", "\nnightly ", "\nweekly "}, []string{"BUGS", "FAILURES"}},
		{"wide", "wide", "", []string{"sweepruns", "weekly"}, []string{"BUGS", "FAILURES", "\nweekly "}, []string{"nightly"}},
		{"trials of a run", "", "nightly", []string{"tt"}, []string{"TASK", "REASON", "\n" + trial.Name + " "}, []string{"ATTEMPT"}},
		{"name", "name", "", []string{"sweeprun"}, []string{"sweeprun.eval.sweep.dev/nightly\nsweeprun.eval.sweep.dev/weekly\n"}, nil},
		{"one object", "jsonpath={.kind}/{.metadata.name}", "", []string{"sr", "weekly"}, []string{"SweepRun/weekly"}, nil},
		{"a list", "jsonpath={.items[*].metadata.name}", "", []string{"sr", "weekly", "nightly"}, []string{"weekly nightly"}, nil},
		{"custom-columns", "custom-columns=TRIAL:.metadata.name,PHASE:.status.phase", "nightly", []string{"trial"}, []string{"TRIAL", trial.Name + "   Succeeded\n"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := sweepGet(tc.format, tc.run, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("lacks %q:\n%s", want, out)
				}
			}
			for _, not := range tc.not {
				if strings.Contains(out, not) {
					t.Errorf("has %q:\n%s", not, out)
				}
			}
		})
	}
	out, stderr, err := sweepGet("", "weekly", "tt")
	if err != nil || out != "" || stderr != "No tasktrials in namespace "+ns+".\n" {
		t.Errorf("no trials: %q, %q, %v", out, stderr, err)
	}
	for _, tc := range []struct {
		name, format, run string
		args              []string
		want              []string
	}{
		{"no kind", "", "", nil, []string{"name a kind: sweepruns (sr) or tasktrials (tt)"}},
		{"not our kind", "", "", []string{"pods"}, []string{"sweep get pods: not a kind of eval.sweep.dev", "sweepruns (sweeprun, sr)", "tasktrials (tasktrial, trial, tt)"}},
		{"missing", "", "", []string{"sr", "monthly"}, []string{"sweeprun monthly not found in namespace " + ns, "sweep get sweepruns"}},
		{"missing as yaml", "yaml", "", []string{"sr", "monthly"}, []string{"sweeprun monthly not found"}},
		{"missing trial of a run", "", "weekly", []string{"tt", trial.Name}, []string{"among the trials of sweeprun weekly", "leave out --run"}},
		{"run on sweepruns", "", "nightly", []string{"sr"}, []string{"flag --run: keeps the TaskTrials of a SweepRun, not sweepruns"}},
		{"format", "xml", "", []string{"sr"}, []string{"want one of wide, json", `got "xml"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := sweepGet(tc.format, tc.run, tc.args...)
			sweeptest.ErrorContains(t, err, tc.want...)
		})
	}
	nobody := clitest.Cluster(srv.UserKubeconfig(t, "nobody-get"), ns)
	_, _, err = clitest.Execute(context.Background(), &get.Options{Cluster: nobody, Print: clioptions.NewTablePrintFlags()}, "sr")
	sweeptest.ErrorContains(t, err, "listing sweepruns in namespace "+ns+": forbidden: ask for list on sweepruns.eval.sweep.dev")
	yaml := clioptions.NewTablePrintFlags()
	*yaml.Print.OutputFormat = "yaml"
	_, _, err = clitest.Execute(context.Background(), &get.Options{Cluster: nobody, Print: yaml}, "tt")
	sweeptest.ErrorContains(t, err, "listing tasktrials in namespace "+ns+": forbidden: ask for list on tasktrials.eval.sweep.dev")
}
