// Package storeread is how the CLI reads the artifact store: a store URL given on the command
// line, opened with the user's own credentials (the AWS_* variables, the cloud's login), and
// the job folder of a campaign found in it.
package storeread

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
)

// IsURL says whether a command-line argument names a store (it has a scheme) rather than a
// directory or an object's name.
func IsURL(arg string) bool { return strings.Contains(arg, "://") }

// Open opens the store at rawURL for reading with the environment's credentials. A file://
// store must be a directory that exists: opening one creates it, and a mistyped path should
// be an error, not a new empty store.
func Open(ctx context.Context, rawURL string) (*recordstore.Store, error) {
	u, err := recordstore.ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme == recordstore.SchemeFile {
		st, err := os.Stat(filepath.FromSlash(u.Path))
		if err != nil {
			return nil, fmt.Errorf("store %s: %w: give the store's directory as the machine you run sweep on sees it", recordstore.Redacted(u), err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("store %s: %s is a file, not a directory", recordstore.Redacted(u), u.Path)
		}
	}
	return recordstore.Open(ctx, rawURL)
}

// Unreachable adds what to check to an error of reading a store other than a missing key.
func Unreachable(storeURL string, err error) error {
	return fmt.Errorf("%w: check that %s is reachable from here and that your credentials may read it (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the cloud's login)", err, storeURL)
}

// Job is a campaign's job folder in a store.
type Job struct {
	Store *recordstore.Store
	// Folder is the job folder's key prefix in Store: "" or ending in /.
	Folder string
	// URL is the job folder's own store URL.
	URL string
}

// jobFolderKey matches the config.json of a job folder NAME-<uid[:8]>/ (recordstore.JobFolder).
func jobFolderKey(name string) *regexp.Regexp {
	return regexp.MustCompile(`^(` + regexp.QuoteMeta(name) + `-[0-9a-f]{8})/` + regexp.QuoteMeta(harborjob.ConfigFile) + `$`)
}

// anyJobFolderKey matches the config.json of any job folder directly below a prefix.
var anyJobFolderKey = regexp.MustCompile(`^([^/]+)/` + regexp.QuoteMeta(harborjob.ConfigFile) + `$`)

// FindJob finds the job folder rawURL names: the URL itself when it holds a job's
// config.json (STORE/NAMESPACE/SWEEPRUN-UID, as a SweepRun's status.record gives it), else
// STORE/NAMESPACE/SWEEPRUN, the one job folder SWEEPRUN-<uid>/ of that name. A name used by
// several campaigns (a SweepRun deleted and created again) is refused with their URLs.
func FindJob(ctx context.Context, rawURL string) (*Job, error) {
	st, err := Open(ctx, rawURL)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A file:// STORE/NAMESPACE/SWEEPRUN is no directory: its job folder is beside it.
	case err != nil:
		return nil, err
	default:
		_, err := st.Get(ctx, harborjob.ConfigFile)
		if err == nil {
			return &Job{Store: st, URL: st.URL()}, nil
		}
		_ = st.Close() // read-only: nothing to flush
		if !errors.Is(err, recordstore.ErrNotFound) {
			return nil, Unreachable(st.URL(), err)
		}
	}
	u, _ := url.Parse(rawURL) // Open parsed it
	name := path.Base(strings.TrimSuffix(u.Path, "/"))
	if name == "." || name == "/" || name == "" {
		return nil, fmt.Errorf("%s holds no job folder (no %s): %s", recordstore.Redacted(u), harborjob.ConfigFile, jobURLForms)
	}
	parent := *u
	parent.Path = path.Dir(strings.TrimSuffix(u.Path, "/"))
	pst, err := Open(ctx, parent.String())
	if err != nil {
		return nil, fmt.Errorf("no job folder at %s: %w", recordstore.Redacted(u), err)
	}
	keys, err := pst.List(ctx, "")
	if err != nil {
		_ = pst.Close() // read-only; the listing's error is the one to report
		return nil, Unreachable(pst.URL(), err)
	}
	match, others := matchJobFolders(keys, name)
	switch len(match) {
	case 1:
		folder := match[0] + "/"
		return &Job{Store: pst, Folder: folder, URL: pst.KeyURL(folder)}, nil
	case 0:
		_ = pst.Close() // read-only: nothing to flush
		have := "none"
		if len(others) > 0 {
			have = strings.Join(others, ", ")
		}
		return nil, fmt.Errorf("no job folder at %s: it has no %s, and %s has no job folder %s-<uid>/ (job folders there: %s); %s", recordstore.Redacted(u), harborjob.ConfigFile, pst.URL(), name, have, jobURLForms)
	}
	_ = pst.Close() // read-only: nothing to flush
	urls := make([]string, len(match))
	for i, m := range match {
		urls[i] = pst.KeyURL(m + "/")
	}
	return nil, fmt.Errorf("%d campaigns named %s have job folders in %s (the SweepRun was created again): give one of %s", len(match), name, pst.URL(), strings.Join(urls, ", "))
}

// jobURLForms says how a store URL names a job folder.
const jobURLForms = "give the job folder, STORE/NAMESPACE/SWEEPRUN-UID as `kubectl get sweeprun NAME -o jsonpath='{.status.record}'` shows it, or STORE/NAMESPACE/SWEEPRUN"

// matchJobFolders are the job folders among keys named name-<uid>, and the names of the others.
func matchJobFolders(keys []string, name string) (match, others []string) {
	want := jobFolderKey(name)
	for _, k := range keys {
		if m := want.FindStringSubmatch(k); m != nil {
			match = append(match, m[1])
		} else if m := anyJobFolderKey.FindStringSubmatch(k); m != nil {
			others = append(others, m[1])
		}
	}
	sort.Strings(match)
	sort.Strings(others)
	return match, others
}

// Download copies the job folder rawURL names into dir and returns it.
func Download(ctx context.Context, rawURL, dir string) (*Job, int, error) {
	job, err := FindJob(ctx, rawURL)
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = job.Store.Close() }() // read-only: nothing to flush
	n, err := job.Store.Download(ctx, job.Folder, dir)
	if err != nil {
		return job, n, fmt.Errorf("downloading %s to %s: %w", job.URL, dir, err)
	}
	return job, n, nil
}
