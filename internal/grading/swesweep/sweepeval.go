package swesweep

import (
	"encoding/json"
	"math"
	"slices"
	"time"

	"github.com/swe-sweep/sweep-operator/internal/reward"
)

// SweepEval are the fields of SWE-sweep's own eval.json, carried in ours beside our own, so
// that a trial can be re-scored offline as SWE-sweep re-scores one: the headline numbers,
// every visible test's outcome (Eval.VisibleTests) and each bug's targeted run split into its
// fail-to-pass and other tests. The fields named like reward.json's keys are written under
// those keys (internal/reward) by Eval's MarshalJSON, as booleans and counts.
type SweepEval struct {
	EvaluatedAt       string        `json:"evaluated_at"`
	Version           string        `json:"version"`
	Oracle            bool          `json:"oracle"`
	Score             float64       `json:"score"`
	VisibleOK         bool          `json:"-"`
	AgentPatchApplied bool          `json:"-"`
	AgentBuildOK      bool          `json:"-"`
	AgentPatchError   *string       `json:"agent_patch_error"`
	NSubtasks         int           `json:"-"`
	NResolved         int           `json:"-"`
	NPartial          int           `json:"-"`
	Subtasks          []SweepBug    `json:"subtasks"`
	PatchSummary      *PatchSummary `json:"patch_stats,omitempty"`
}

// SweepBug is one bug in SWE-sweep's subtask form.
type SweepBug struct {
	SubtaskID   string         `json:"subtask_id"`
	Resolved    bool           `json:"resolved"`
	Partial     bool           `json:"partial"`
	TestApplied bool           `json:"test_applied"`
	Targeted    []string       `json:"targeted"`
	NPassed     int            `json:"n_passed"`
	NFailed     int            `json:"n_failed"`
	DurationS   float64        `json:"duration_s"`
	Detail      map[string]any `json:"detail"`
	HasSplit    bool           `json:"has_split"`
	F2PPassed   []string       `json:"f2p_passed"`
	P2PPassed   []string       `json:"p2p_passed"`
	F2PFailed   []string       `json:"f2p_failed"`
	P2PFailed   []string       `json:"p2p_failed"`
}

// PatchSummary is SWE-sweep's patch_stats: the agent's patch against the files the bugs'
// oracle patches change.
type PatchSummary struct {
	FilesEdited       []string `json:"files_edited"`
	LinesAdded        int      `json:"lines_added"`
	LinesRemoved      int      `json:"lines_removed"`
	TargetFiles       []string `json:"target_files"`
	OnTargetFiles     []string `json:"on_target_files"`
	OffTargetFiles    []string `json:"off_target_files"`
	TargetCoveragePct float64  `json:"target_coverage_pct"`
}

// sweepEval fills SWE-sweep's fields from the result and what the grading recorded.
func sweepEval(ev *Eval, r reward.Result, now time.Time) SweepEval {
	s := SweepEval{
		EvaluatedAt: now.Format("20060102T150405"), Version: ev.Version, Oracle: ev.Mode == "oracle",
		Score: r[reward.KeyReward], VisibleOK: r[reward.KeyVisibleOK] == 1,
		AgentPatchApplied: r[reward.KeyPatchApplied] == 1, AgentBuildOK: r[reward.KeyBuildOK] == 1,
		NSubtasks: int(r[reward.KeySubtasks]), NResolved: int(r[reward.KeyResolved]), NPartial: int(r[reward.KeyPartial]),
		Subtasks: []SweepBug{},
	}
	if ev.Patch != nil && ev.Patch.ApplyError != "" {
		msg := ev.Patch.ApplyError
		s.AgentPatchError = &msg
	}
	if s.AgentBuildOK {
		for _, b := range ev.Bugs {
			detail := map[string]any{}
			if b.Error != "" {
				detail["error"] = b.Error
			}
			s.Subtasks = append(s.Subtasks, SweepBug{SubtaskID: b.ID, Resolved: b.Resolved, Partial: b.Partial,
				TestApplied: b.TestApplied, Targeted: b.Targeted, NPassed: b.NPassed, NFailed: b.NFailed,
				DurationS: math.Round(b.Seconds*1000) / 1000, Detail: detail, HasSplit: true,
				F2PPassed: b.F2PPassed, P2PPassed: b.P2PPassed, F2PFailed: b.F2PFailed, P2PFailed: b.P2PFailed})
		}
	}
	if ev.Patch != nil {
		s.PatchSummary = patchSummary(ev.Patch, ev.targetFiles)
	}
	return s
}

func patchSummary(p *PatchReport, target []string) *PatchSummary {
	edited := p.Paths()
	slices.Sort(edited)
	target = slices.Compact(slices.Sorted(slices.Values(target)))
	s := &PatchSummary{FilesEdited: edited, LinesAdded: p.Additions, LinesRemoved: p.Deletions, TargetFiles: target,
		OnTargetFiles: []string{}, OffTargetFiles: []string{}}
	if s.FilesEdited == nil {
		s.FilesEdited = []string{}
	}
	if s.TargetFiles == nil {
		s.TargetFiles = []string{}
	}
	for _, f := range edited {
		if slices.Contains(target, f) {
			s.OnTargetFiles = append(s.OnTargetFiles, f)
		} else {
			s.OffTargetFiles = append(s.OffTargetFiles, f)
		}
	}
	if len(target) > 0 {
		s.TargetCoveragePct = math.Round(float64(len(s.OnTargetFiles))/float64(len(target))*1000) / 10
	}
	return s
}

// evalFields is Eval without its methods, for encoding its tagged fields.
type evalFields Eval

// sweepKeys are the fields of SweepEval that eval.json names by reward.json's keys.
func (s *SweepEval) sweepKeys() map[string]any {
	return map[string]any{
		reward.KeyVisibleOK: &s.VisibleOK, reward.KeyPatchApplied: &s.AgentPatchApplied, reward.KeyBuildOK: &s.AgentBuildOK,
		reward.KeySubtasks: &s.NSubtasks, reward.KeyResolved: &s.NResolved, reward.KeyPartial: &s.NPartial,
	}
}

// MarshalJSON writes eval.json: the tagged fields and SWE-sweep's fields named by reward keys.
func (e Eval) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(evalFields(e))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range e.sweepKeys() {
		if m[k], err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	return json.Marshal(m)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Eval) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, (*evalFields)(e)); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for k, v := range e.sweepKeys() {
		if raw, ok := m[k]; ok {
			if err := json.Unmarshal(raw, v); err != nil {
				return err
			}
		}
	}
	return nil
}
