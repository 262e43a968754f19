package controllers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func validSpec() evalv1.TaskTrialSpec {
	return evalv1.TaskTrialSpec{Task: "calc", Attempt: 1, Definition: `name = "calc"`,
		Images: evalv1.TrialImages{Agent: "agent:1", Verifier: "verifier:1"}, Agent: evalv1.AgentSpec{Nop: &evalv1.NopAgent{}}}
}

func scopeFor(spec evalv1.TaskTrialSpec) *trialScope {
	return &trialScope{trial: &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: "t", Generation: 2}, Spec: spec}, now: now}
}

// withoutTimes blanks the transition times SetStatusCondition stamps with the wall clock.
func withoutTimes(cs []metav1.Condition) []metav1.Condition {
	out := append([]metav1.Condition(nil), cs...)
	for i := range out {
		out[i].LastTransitionTime = metav1.Time{}
	}
	return out
}

func TestLoadTask(t *testing.T) {
	cases := map[string]struct {
		edit    func(*evalv1.TaskTrialSpec)
		wantMsg string // empty: the task loads
	}{
		"valid": {edit: func(*evalv1.TaskTrialSpec) {}},
		"no definition": {edit: func(s *evalv1.TaskTrialSpec) { s.Definition = "" },
			wantMsg: `spec.definition is empty: task "calc" needs its task.toml`},
		"definition not TOML": {edit: func(s *evalv1.TaskTrialSpec) { s.Definition = "name = " },
			wantMsg: `spec.definition (task.toml of task "calc")`},
		"no agent image": {edit: func(s *evalv1.TaskTrialSpec) { s.Images.Agent = "" },
			wantMsg: "spec.images.agent is empty: annotate the task ConfigMap of \"calc\" with " + evalv1.AnnotationAgentImage},
		"no verifier image": {edit: func(s *evalv1.TaskTrialSpec) { s.Images.Verifier = "" },
			wantMsg: "spec.images.verifier is empty: annotate the task ConfigMap of \"calc\" with " + evalv1.AnnotationVerifierImage},
		"oracle without solution": {edit: func(s *evalv1.TaskTrialSpec) { s.Agent = evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}} },
			wantMsg: "spec.solutionConfigMap is empty: the oracle agent needs the task's solution"},
		"SWE-bench bug subset": {edit: func(s *evalv1.TaskTrialSpec) { s.Grader, s.Bugs = podcontract.GraderSWEBench, []string{"b1"} },
			wantMsg: "spec.bugs: a SWE-bench instance is one bug and cannot be graded in part"},
		"bad resource scale": {edit: func(s *evalv1.TaskTrialSpec) {
			s.Resources = &evalv1.ResourcePolicy{Mode: evalv1.ResourcesScaled, Scale: "0"}
		}, wantMsg: "spec.resources.scale: want a positive decimal"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			spec := validSpec()
			tc.edit(&spec)
			s := scopeFor(spec)
			_, done, err := s.loadTask(context.Background())
			if err != nil {
				t.Fatalf("loadTask: %v", err)
			}
			st := s.trial.Status
			if tc.wantMsg == "" {
				if done || s.task == nil || st.Phase != "" {
					t.Errorf("loadTask stopped a valid trial: done=%v phase=%q message=%q", done, st.Phase, st.Message)
				}
				return
			}
			if !done || st.Phase != evalv1.TrialError || st.Reason != reasons.InvalidTask || !strings.Contains(st.Message, tc.wantMsg) {
				t.Errorf("loadTask = done %v, %s %s %q; want done, Error InvalidTask with %q", done, st.Phase, st.Reason, st.Message, tc.wantMsg)
			}
			if st.CompletionTime == nil || !st.CompletionTime.Time.Equal(now) {
				t.Errorf("CompletionTime = %v, want %v", st.CompletionTime, now)
			}
		})
	}
}

func TestRecordStageEnd(t *testing.T) {
	exit := func(n int32) *int32 { return &n }
	cond := func(typ, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: reason, Message: msg, ObservedGeneration: 2}
	}
	cases := map[string]struct {
		stage          podcontract.Stage
		verdict        failure.Verdict
		summary        *podcontract.Summary
		wantStage      evalv1.StageStatus
		wantConditions []metav1.Condition
		wantReason     string
	}{
		"agent did its work": {stage: podcontract.StageAgent, verdict: failure.Verdict{Done: true}, summary: &podcontract.Summary{ExitCode: 0},
			wantStage:      evalv1.StageStatus{ExitCode: exit(0)},
			wantConditions: []metav1.Condition{cond(evalv1.TrialAgentCompleted, reasons.Completed, "")}},
		"agent timeout is the trial's reason": {stage: podcontract.StageAgent,
			verdict:        failure.Verdict{Done: true, Class: failure.ClassAgent, Reason: reasons.AgentTimeout, Message: "agent timed out"},
			summary:        &podcontract.Summary{ExitCode: -1},
			wantStage:      evalv1.StageStatus{ExitCode: exit(-1), Reason: reasons.AgentTimeout, Message: "agent timed out"},
			wantConditions: []metav1.Condition{cond(evalv1.TrialAgentCompleted, reasons.AgentTimeout, "agent timed out")},
			wantReason:     reasons.AgentTimeout},
		"infrastructure failure sets no condition": {stage: podcontract.StageAgent,
			verdict:   failure.Verdict{Done: true, Class: failure.ClassInfrastructure, Reason: reasons.CollectorLost, Message: "lost"},
			wantStage: evalv1.StageStatus{Reason: reasons.CollectorLost, Message: "lost"}},
		"verifier failure is left to the decision": {stage: podcontract.StageVerifier,
			verdict:   failure.Verdict{Done: true, Class: failure.ClassVerifier, Reason: reasons.GraderFailed, Message: "crash"},
			summary:   &podcontract.Summary{ExitCode: 2},
			wantStage: evalv1.StageStatus{ExitCode: exit(2), Reason: reasons.GraderFailed, Message: "crash"}},
		"patch too large: the agent stage ends with the cause its trial is scored with": {stage: podcontract.StageAgent,
			verdict:        failure.Verdict{Done: true, Class: failure.ClassScored, Reason: reasons.PatchTooLarge, Message: "big"},
			summary:        &podcontract.Summary{},
			wantStage:      evalv1.StageStatus{ExitCode: exit(0), Reason: reasons.PatchTooLarge, Message: "big"},
			wantConditions: []metav1.Condition{cond(evalv1.TrialAgentCompleted, reasons.PatchTooLarge, "big")},
			wantReason:     reasons.PatchTooLarge},
		"verifier out of memory, no summary": {stage: podcontract.StageVerifier,
			verdict:        failure.Verdict{Done: true, Class: failure.ClassScored, Reason: reasons.VerifierOutOfMemory, Message: "oom", ZeroScore: true},
			wantStage:      evalv1.StageStatus{Reason: reasons.VerifierOutOfMemory, Message: "oom"},
			wantConditions: []metav1.Condition{cond(evalv1.TrialVerified, reasons.VerifierOutOfMemory, "oom")},
			wantReason:     reasons.VerifierOutOfMemory},
		"verifier did its work": {stage: podcontract.StageVerifier, verdict: failure.Verdict{Done: true}, summary: &podcontract.Summary{},
			wantStage:      evalv1.StageStatus{ExitCode: exit(0)},
			wantConditions: []metav1.Condition{cond(evalv1.TrialVerified, reasons.Completed, "")}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := scopeFor(validSpec())
			ss := &evalv1.StageStatus{}
			s.recordStageEnd(tc.stage, ss, tc.verdict, tc.summary)
			tc.wantStage.CompletionTime = s.metaNow()
			if diff := cmp.Diff(&tc.wantStage, ss); diff != "" {
				t.Errorf("stage status (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantConditions, withoutTimes(s.trial.Status.Conditions)); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
			if s.trial.Status.Reason != tc.wantReason {
				t.Errorf("trial reason = %q, want %q", s.trial.Status.Reason, tc.wantReason)
			}
		})
	}
}

func TestFinishGraded(t *testing.T) {
	timedOut := &evalv1.StageStatus{Reason: reasons.AgentTimeout, Message: "agent timed out"}
	hung := &evalv1.StageStatus{Reason: reasons.TestsHungOnPatch, Message: "suite hung on the patch"}
	cases := map[string]struct {
		agent, verifier         *evalv1.StageStatus
		wantVerified            string
		wantVerifiedMessage     string
		wantReason, wantMessage string
	}{
		"graded": {agent: &evalv1.StageStatus{}, verifier: &evalv1.StageStatus{},
			wantReason: reasons.Graded, wantMessage: "score 0.5000"},
		"keeps the agent's reason": {agent: timedOut, verifier: &evalv1.StageStatus{},
			wantReason: reasons.AgentTimeout, wantMessage: "agent timed out"},
		"patch too large: scored with its reason": {agent: &evalv1.StageStatus{Reason: reasons.PatchTooLarge, Message: "big"},
			wantReason: reasons.PatchTooLarge, wantMessage: "big"},
		"the grader's cause of the score": {agent: &evalv1.StageStatus{}, verifier: hung,
			wantVerified: reasons.TestsHungOnPatch, wantVerifiedMessage: "score 0.5000: suite hung on the patch",
			wantReason: reasons.TestsHungOnPatch, wantMessage: "score 0.5000: suite hung on the patch"},
		"the grader's cause before the agent's reason": {agent: timedOut, verifier: hung,
			wantVerified: reasons.TestsHungOnPatch, wantVerifiedMessage: "score 0.5000: suite hung on the patch",
			wantReason: reasons.TestsHungOnPatch, wantMessage: "score 0.5000: suite hung on the patch"},
		"no agent stage (regraded)": {wantReason: reasons.Graded, wantMessage: "score 0.5000"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := scopeFor(validSpec())
			s.trial.Status.Agent, s.trial.Status.Verifier, s.trial.Status.Score = tc.agent, tc.verifier, "0.5000"
			s.finishGraded()
			st := s.trial.Status
			verified, verifiedMessage := reasons.Graded, "score 0.5000"
			if tc.wantVerified != "" {
				verified, verifiedMessage = tc.wantVerified, tc.wantVerifiedMessage
			}
			want := []metav1.Condition{
				{Type: evalv1.TrialVerified, Status: metav1.ConditionTrue, Reason: verified, Message: verifiedMessage, ObservedGeneration: 2},
				{Type: evalv1.TrialComplete, Status: metav1.ConditionTrue, Reason: tc.wantReason, Message: tc.wantMessage, ObservedGeneration: 2},
			}
			if diff := cmp.Diff(want, withoutTimes(st.Conditions)); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
			if st.Phase != evalv1.TrialSucceeded || st.Reason != tc.wantReason || st.Message != tc.wantMessage || st.CompletionTime == nil {
				t.Errorf("status = %s %s %q (completed %v), want Succeeded %s %q", st.Phase, st.Reason, st.Message, st.CompletionTime, tc.wantReason, tc.wantMessage)
			}
		})
	}
}
