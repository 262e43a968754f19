package controllers

import (
	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
)

// jobRecord is the campaign's status.record: its store, its job folder and how many of its
// trials (superseded runs included: their records stay) are recorded there; nil when the
// campaign has no store.
func jobRecord(stores *Stores, run *evalv1.SweepRun, trials []*evalv1.TaskTrial) *evalv1.JobRecordStatus {
	url := stores.URL(run)
	if url == "" {
		return nil
	}
	rec := &evalv1.JobRecordStatus{Store: url, Folder: recordstore.JobFolder(run.Namespace, run.Name, run.UID)}
	for i := range trials {
		if trials[i].Status.Record != nil {
			rec.Trials++
		}
	}
	return rec
}
