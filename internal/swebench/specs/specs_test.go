package specs

import (
	"slices"
	"strings"
	"testing"
)

func TestKnownRepos(t *testing.T) {
	known := KnownRepos()
	if !slices.IsSortedFunc(known, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) }) {
		t.Errorf("not sorted without regard to case: %v", known)
	}
	for repo, want := range map[string]bool{
		"django/django":           true,  // both tags
		"gin-gonic/gin":           true,  // Multilingual
		"GoogleChrome/lighthouse": true,  // v5.0.1's maps only
		"dbt-labs/dbt-core":       false, // v4.1.0's specs only: no parser in either tag
		"me/mine":                 false,
	} {
		if Known(repo) != want || slices.Contains(known, repo) != want {
			t.Errorf("%s: known %v, want %v", repo, Known(repo), want)
		}
	}
}

func TestUnknownRepoError(t *testing.T) {
	msg := (&UnknownRepoError{InstanceID: "me__mine-1", Repo: "me/mine"}).Error()
	for _, want := range []string{"instance me__mine-1", "field repo", `unknown repository "me/mine"`, "known: alibaba-fusion/next, apache/druid,", "vuejs/core (", "log_parser"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q lacks %q", msg, want)
		}
	}
}

// Every fact says where it came from, in one of the two tags.
func TestEveryEntryNamesItsSource(t *testing.T) {
	d := All()
	for _, tag := range []string{Tag41, Tag5} {
		if len(d.Upstream[tag]) != 40 {
			t.Errorf("upstream commit of %s: %q", tag, d.Upstream[tag])
		}
		for what, l := range map[string]Listed{"patch_apply": d.PatchApply[tag], "fail_only_repos": d.FailOnlyRepos[tag], "non_test_exts": d.NonTestExts[tag]} {
			if !strings.HasPrefix(l.From, tag+":swebench/") {
				t.Errorf("%s %s: from %q", what, tag, l.From)
			}
		}
	}
	for name, r := range d.Repos {
		for tag, p := range r.Parsers {
			if p.Name == "" || !strings.HasPrefix(p.From, tag+":swebench/harness/log_parsers/") {
				t.Errorf("%s: parser in %s: %+v", name, tag, p)
			}
		}
		for v, spec := range r.Versions {
			// dbt-labs/dbt-core's specs have no test_cmd; no map names it, so it is not imported.
			if !strings.HasPrefix(spec.From, Tag41+":swebench/harness/constants/") || r.Ext == "" || (Known(name) && len(spec.TestCmd) == 0) {
				t.Errorf("%s %s: from %q, ext %q, test_cmd %v", name, v, spec.From, r.Ext, spec.TestCmd)
			}
			// A derived need names the spec field it came from.
			if (len(spec.PytestPlugins) > 0) != strings.HasPrefix(spec.PytestPluginsFrom, "pip_packages of "+spec.From) ||
				spec.ReinstallNetwork != strings.HasPrefix(spec.ReinstallNetworkFrom, "install of "+spec.From) {
				t.Errorf("%s %s: pytest_plugins %v from %q, reinstall_network %v from %q", name, v, spec.PytestPlugins, spec.PytestPluginsFrom,
					spec.ReinstallNetwork, spec.ReinstallNetworkFrom)
			}
		}
	}
}

// The per-version needs, as the spec fields give them.
func TestNeeds(t *testing.T) {
	for _, tc := range []struct {
		repo, version string
		plugins       []string
		network       bool
	}{
		{"astropy/astropy", "5.0", []string{"hypothesis==6.82.6", "pytest-arraydiff==0.5.0", "pytest-astropy-header==0.2.2", "pytest-astropy==0.10.0",
			"pytest-cov==4.1.0", "pytest-doctestplus==1.0.0", "pytest-filter-subpackage==0.1.2", "pytest-mock==3.11.1", "pytest-openfiles==0.5.0",
			"pytest-remotedata==0.4.0", "pytest-xdist==3.3.1"}, true},
		{"scikit-learn/scikit-learn", "1.3", nil, false}, // --no-build-isolation
		{"django/django", "2.2", nil, false},             // python setup.py install
		{"django/django", "4.0", nil, true},              // python -m pip install -e .
	} {
		spec := data.Repos[tc.repo].Versions[tc.version]
		if !slices.Equal(spec.PytestPlugins, tc.plugins) || spec.ReinstallNetwork != tc.network {
			t.Errorf("%s %s: pytest_plugins %v, reinstall_network %v; want %v, %v", tc.repo, tc.version, spec.PytestPlugins, spec.ReinstallNetwork, tc.plugins, tc.network)
		}
	}
}
