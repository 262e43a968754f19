//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/agentkind"
	"github.com/swe-sweep/sweep-operator/internal/exclusions"
)

// validationTask is the sample task made to fail validation (tasks/flakykit): median-even is
// sound, nop resolves mean-empty, and mode-ties' hidden test fails on even attempts.
const validationTask = "sweep-samples__flakykit"

var _ = Describe("task validation", func() {
	It("flags flakykit's flaky and trivial bugs over five runs and writes them to an exclusion list", func() {
		ns := catalogueNamespace("validation")
		start := time.Now()
		stdout, stderr, err := sweepCLI("tasks", "check", validationTask, "--repeat", "5", "--parallelism", "5",
			"-o", "json", "--exclusions", "flakykit-exclusions", "-n", ns)
		AddReportEntry("sweep tasks check --repeat 5 of flakykit", time.Since(start).String())
		Expect(err).To(HaveOccurred(), "two bugs are not valid: the command exits non-zero\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
		Expect(stderr).To(ContainSubstring("2 of 3 bugs are not valid (flaky 1, trivial 1); the exclusion list in configmap " + ns + "/flakykit-exclusions"))

		var report struct {
			Schema string `json:"schema"`
			Bugs   []struct {
				Task, Bug, Verdict, Detail string
				Oracle, Nop                struct{ Resolved, Measured, Runs int }
				Flaky                      []struct{ Test, Agent string }
			} `json:"bugs"`
		}
		Expect(json.Unmarshal([]byte(stdout), &report)).To(Succeed(), stdout)
		Expect(report.Schema).To(Equal("sweep-validation/1"))
		verdicts := map[string]string{}
		for _, b := range report.Bugs {
			AddReportEntry("validation of "+b.Bug, b.Verdict+": "+b.Detail)
			Expect(b.Task).To(Equal(validationTask))
			Expect(b.Oracle.Measured).To(Equal(5), "every oracle run measured: %s", b.Detail)
			Expect(b.Nop.Measured).To(Equal(5), "every nop run measured: %s", b.Detail)
			verdicts[b.Bug] = b.Verdict
			if b.Bug == "mode-ties" {
				Expect(b.Oracle.Resolved).To(Equal(3), "the seeded test passes on attempts 1, 3 and 5: %s", b.Detail)
				Expect(b.Flaky).To(ContainElement(HaveField("Test", "tests/test_mode_ties.py::test_ties_under_load")))
			}
		}
		Expect(verdicts).To(Equal(map[string]string{"median-even": "valid", "mean-empty": "trivial", "mode-ties": "flaky"}))

		cm := &corev1.ConfigMap{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "flakykit-exclusions"}, cm)).To(Succeed())
		list, err := exclusions.Parse("configmap flakykit-exclusions", []byte(cm.Data[exclusions.ConfigMapKey]))
		Expect(err).NotTo(HaveOccurred())
		Expect(list.Entries).To(HaveLen(2))
		Expect(list.Entries[0]).To(And(HaveField("Task", validationTask), HaveField("Bug", "mean-empty"), HaveField("Reason", exclusions.Trivial)))
		Expect(list.Entries[1]).To(And(HaveField("Task", validationTask), HaveField("Bug", "mode-ties"), HaveField("Reason", exclusions.Flaky)))
		Expect(list.Entries[1].Detail).To(Equal("oracle resolved 3/5, nop 0/5, flaky: tests/test_mode_ties.py::test_ties_under_load"))

		table, _, _ := sweepCLI("tasks", "check", "--from-runs", oracleAndNop(ns), "-n", ns)
		AddReportEntry("validation report", table)

		By("a nop campaign that applies the list: the bug nop resolves leaves the score, and so does the flaky one")
		var validationNop evalv1.SweepRun
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: strings.Split(oracleAndNop(ns), ",")[1]}, &validationNop)).To(Succeed())
		Expect(validationNop.Status.Score).To(Equal("0.3333"), "without the list nop scores the trivial bug: 1 of 3")
		run := newRun(ns, "excluded", evalv1.AgentSpec{Nop: &evalv1.NopAgent{}})
		run.Spec.Tasks = evalv1.TaskSelection{Names: []string{validationTask}, Exclusions: &evalv1.TaskExclusions{ConfigMapName: "flakykit-exclusions"}}
		Expect(k8s.Create(context.Background(), run)).To(Succeed())
		sr := waitFinished(ns, "excluded")
		Expect(sr.Status.Score).To(Equal("0.0000"), "nop resolves nothing the list leaves")
		Expect(sr.Status.BugsTotal).To(Equal(int32(1)), "one bug left of three")
		Expect(sr.Status.Exclusions).NotTo(BeNil())
		Expect(sr.Status.Exclusions.BugsExcluded).To(Equal(int32(2)))
		Expect(sr.Status.Exclusions.ByReason).To(ConsistOf(
			evalv1.ExclusionCount{Reason: string(exclusions.Flaky), Bugs: 1},
			evalv1.ExclusionCount{Reason: string(exclusions.Trivial), Bugs: 1}))
		trials := trialsOf(ns, "excluded")
		Expect(trials).To(HaveLen(1))
		Expect(trials[0].Spec.Bugs).To(Equal([]string{"median-even"}))
		info, stderr, err := sweepCLI("info", "excluded", "-n", ns)
		Expect(err).NotTo(HaveOccurred(), stderr)
		AddReportEntry("sweep info of the campaign with the list", info)
		Expect(info).To(ContainSubstring("flaky 1"))
		Expect(info).To(ContainSubstring("trivial 1"))
	})
})

// oracleAndNop names the oracle and the nop SweepRun `sweep tasks check` started in ns.
func oracleAndNop(ns string) string {
	runs := map[string]string{}
	list := &evalv1.SweepRunList{}
	ExpectWithOffset(1, k8s.List(context.Background(), list, client.InNamespace(ns))).To(Succeed())
	for _, r := range list.Items {
		runs[r.Spec.Agent.Kind()] = r.Name
	}
	return runs[agentkind.Oracle] + "," + runs[agentkind.Nop]
}
