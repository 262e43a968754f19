package swebench

import "slices"

// CampaignReport is SWE-bench's run report (schema_version 2), plus the grading version used.
type CampaignReport struct {
	TotalInstances      int            `json:"total_instances"`
	SubmittedInstances  int            `json:"submitted_instances"`
	CompletedInstances  int            `json:"completed_instances"`
	ResolvedInstances   int            `json:"resolved_instances"`
	UnresolvedInstances int            `json:"unresolved_instances"`
	EmptyPatchInstances int            `json:"empty_patch_instances"`
	ErrorInstances      int            `json:"error_instances"`
	CompletedIDs        []string       `json:"completed_ids"`
	IncompleteIDs       []string       `json:"incomplete_ids"`
	EmptyPatchIDs       []string       `json:"empty_patch_ids"`
	SubmittedIDs        []string       `json:"submitted_ids"`
	ResolvedIDs         []string       `json:"resolved_ids"`
	UnresolvedIDs       []string       `json:"unresolved_ids"`
	ErrorIDs            []string       `json:"error_ids"`
	SchemaVersion       int            `json:"schema_version"`
	GradingVersion      GradingVersion `json:"grading_version"`
	// ScoredVerdict is the verdict the counts are of (ScoreHardened or ScoreOfficial), when known.
	ScoredVerdict string `json:"scored_verdict,omitempty"`
	// VerdictDifferences are the instances whose hardened and official verdicts differ, by id:
	// how and why (eval.json's verdict_difference).
	VerdictDifferences map[string]string `json:"verdict_differences,omitempty"`
}

// RunReport builds the campaign report over the dataset instances, counting as both versions'
// make_run_report do: every prediction is submitted (one outside the dataset too); a dataset
// instance without a prediction is incomplete; one with a null or empty patch is empty_patch;
// one with a report that is Completed counts as resolved or unresolved (a log the grading
// rejected, 5's invalid runs included, is completed and unresolved); any other (no report: the
// patch did not apply, the tests timed out) is an error. Id lists are sorted.
func RunReport(instances []Instance, preds []Prediction, reports []InstanceReport, version GradingVersion) CampaignReport {
	predByID := make(map[string]Prediction, len(preds))
	var submitted []string
	for _, p := range preds {
		if _, dup := predByID[p.InstanceID]; !dup {
			submitted = append(submitted, p.InstanceID)
		}
		predByID[p.InstanceID] = p // the last prediction of an id wins, as in a dict
	}
	reportByID := make(map[string]InstanceReport, len(reports))
	for _, r := range reports {
		reportByID[r.InstanceID] = r
	}
	rep := CampaignReport{
		TotalInstances: len(instances),
		SchemaVersion:  2,
		GradingVersion: version,
		CompletedIDs:   []string{}, IncompleteIDs: []string{}, EmptyPatchIDs: []string{}, SubmittedIDs: append([]string{}, submitted...),
		ResolvedIDs: []string{}, UnresolvedIDs: []string{}, ErrorIDs: []string{},
	}
	for _, inst := range instances {
		id := inst.InstanceID
		p, predicted := predByID[id]
		if !predicted {
			rep.IncompleteIDs = append(rep.IncompleteIDs, id)
			continue
		}
		if p.Empty() {
			rep.EmptyPatchIDs = append(rep.EmptyPatchIDs, id)
			continue
		}
		r, graded := reportByID[id]
		switch {
		case !graded || !r.Completed():
			rep.ErrorIDs = append(rep.ErrorIDs, id)
		case r.Resolved:
			rep.CompletedIDs = append(rep.CompletedIDs, id)
			rep.ResolvedIDs = append(rep.ResolvedIDs, id)
		default:
			rep.CompletedIDs = append(rep.CompletedIDs, id)
			rep.UnresolvedIDs = append(rep.UnresolvedIDs, id)
		}
	}
	for _, ids := range [][]string{rep.CompletedIDs, rep.IncompleteIDs, rep.EmptyPatchIDs, rep.SubmittedIDs, rep.ResolvedIDs, rep.UnresolvedIDs, rep.ErrorIDs} {
		slices.Sort(ids)
	}
	rep.SubmittedInstances = len(rep.SubmittedIDs)
	rep.CompletedInstances = len(rep.CompletedIDs)
	rep.ResolvedInstances = len(rep.ResolvedIDs)
	rep.UnresolvedInstances = len(rep.UnresolvedIDs)
	rep.EmptyPatchInstances = len(rep.EmptyPatchIDs)
	rep.ErrorInstances = len(rep.ErrorIDs)
	return rep
}
