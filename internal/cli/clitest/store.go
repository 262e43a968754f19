package clitest

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/swe-sweep/sweep-operator/internal/recordstore"
)

// StoreJob writes the files of a job directory into the store as the job folder of sweeprun
// ns/name (uid), as the manager records a campaign, and returns the folder's key.
func StoreJob(t testing.TB, store, jobDir, ns, name, uid string) string {
	t.Helper()
	st, err := recordstore.Open(context.Background(), store)
	Must(t, err)
	defer func() { Must(t, st.Close()) }()
	folder := recordstore.JobFolder(ns, name, types.UID(uid))
	Must(t, filepath.WalkDir(jobDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(jobDir, p)
		if err != nil {
			return err
		}
		_, err = st.Put(context.Background(), folder+filepath.ToSlash(rel), data)
		return err
	}))
	return folder
}
