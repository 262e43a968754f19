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
}

// RunReport builds the campaign report over the dataset instances: an instance without a
// prediction is incomplete; one with a null or empty patch is empty_patch; one with a report that
// is Completed counts as resolved or unresolved; any other submitted instance (no report, patch
// failure, timeout, invalid run) is an error. Id lists are sorted.
func RunReport(instances []Instance, preds []Prediction, reports []InstanceReport, version GradingVersion) CampaignReport {
	predByID := make(map[string]Prediction, len(preds))
	for _, p := range preds {
		predByID[p.InstanceID] = p
	}
	reportByID := make(map[string]InstanceReport, len(reports))
	for _, r := range reports {
		reportByID[r.InstanceID] = r
	}
	rep := CampaignReport{
		TotalInstances: len(instances),
		SchemaVersion:  2,
		GradingVersion: version,
		CompletedIDs:   []string{}, IncompleteIDs: []string{}, EmptyPatchIDs: []string{}, SubmittedIDs: []string{},
		ResolvedIDs: []string{}, UnresolvedIDs: []string{}, ErrorIDs: []string{},
	}
	for _, inst := range instances {
		id := inst.InstanceID
		p, submitted := predByID[id]
		if !submitted {
			rep.IncompleteIDs = append(rep.IncompleteIDs, id)
			continue
		}
		rep.SubmittedIDs = append(rep.SubmittedIDs, id)
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
