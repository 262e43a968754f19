// Package specs holds the facts of SWE-bench's official specs that grading needs, per
// repository and version, as one data file embedded in the binary (specs.json). The file is
// generated from the harness's tags v4.1.0 and v5.0.1 by hack/swebench-goldens/specs_data.py,
// and every entry names the tag and file it came from ("v4.1.0:swebench/harness/constants/python.py").
//
// v4.1.0 keeps the specs in swebench/harness/constants (MAP_REPO_VERSION_TO_SPECS,
// MAP_REPO_TO_EXT) and the repository → parser map in swebench/harness/log_parsers. v5.0.1 has
// no specs: its instances carry their own eval_script, image and log_parser, and its
// log_parsers still hold a repository → parser map per language.
package specs

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Tags of the official harness the data comes from.
const (
	Tag41 = "v4.1.0"
	Tag5  = "v5.0.1"
)

// Languages of MAP_REPO_TO_EXT: which of v4.1.0's eval-script builders a repository gets.
const (
	ExtPython     = "py"
	ExtJavaScript = "js"
)

// ParserRef is a repository's log parser in one tag, under the name its map writes (an alias
// such as parse_log_astropy stays itself).
type ParserRef struct {
	Name string `json:"name"`
	From string `json:"from"`
}

// Version is what the specs say for one version of a repository (v4.1.0's
// MAP_REPO_VERSION_TO_SPECS[repo][version]). A string in the specs is a list of one here.
type Version struct {
	From string `json:"from"`
	// TestCmd: for a Python repository one command, to which the test directives are
	// appended; for the others the commands run in order, without directives.
	TestCmd []string `json:"test_cmd,omitempty"`
	// Install: for a Python repository the reinstall the eval script runs on the patched tree;
	// for the others an image-build step (not part of the eval script).
	Install []string `json:"install,omitempty"`
	// PreInstall runs when the image is built, never in the eval script.
	PreInstall []string `json:"pre_install,omitempty"`
	// EvalCommands run at the top of a Python repository's eval script (locale, environment
	// variables).
	EvalCommands []string `json:"eval_commands,omitempty"`
	// Build runs in the eval script of a non-Python repository, after the test patch.
	Build []string `json:"build,omitempty"`
	// The image's environment: not part of the eval script, kept for what an image needs.
	Python               string          `json:"python,omitempty"`
	Packages             string          `json:"packages,omitempty"`
	PipPackages          []string        `json:"pip_packages,omitempty"`
	AptPkgs              []string        `json:"apt_pkgs,omitempty"`
	DockerSpecs          json.RawMessage `json:"docker_specs,omitempty"`
	NanoCPUs             int64           `json:"nano_cpus,omitempty"`
	ExecuteTestAsNonroot bool            `json:"execute_test_as_nonroot,omitempty"`
	NoUseEnv             bool            `json:"no_use_env,omitempty"`
	// What the version needs of the grader, derived from the fields above by the rule each
	// *From states. PytestPlugins: the pytest plugin distributions pip_packages installs
	// (pytest loads them by their pytest11 entry point). ReinstallNetwork: the install step
	// builds with pip's build isolation, which downloads the build requirements.
	PytestPlugins        []string `json:"pytest_plugins,omitempty"`
	PytestPluginsFrom    string   `json:"pytest_plugins_from,omitempty"`
	ReinstallNetwork     bool     `json:"reinstall_network,omitempty"`
	ReinstallNetworkFrom string   `json:"reinstall_network_from,omitempty"`
}

// Repo is one repository of the official maps.
type Repo struct {
	// Ext is v4.1.0's MAP_REPO_TO_EXT value; "" for a repository v4.1.0 has no specs for.
	Ext     string `json:"ext,omitempty"`
	ExtFrom string `json:"ext_from,omitempty"`
	// Parsers is the repository's parser per tag; a tag without one does not map it.
	Parsers  map[string]ParserRef `json:"parsers"`
	Versions map[string]Version   `json:"versions"`
}

// Listed is a list of facts of one tag, with where it came from.
type Listed struct {
	From    string   `json:"from"`
	Methods []string `json:"methods,omitempty"`
	Repos   []string `json:"repos,omitempty"`
	Exts    []string `json:"exts,omitempty"`
	Names   []string `json:"names,omitempty"`
}

// Data is specs.json.
type Data struct {
	About string `json:"about"`
	// Upstream is the commit of each tag the file was generated from.
	Upstream       map[string]string `json:"upstream"`
	ParserRegistry map[string]Listed `json:"parser_registry"`
	PatchApply     map[string]Listed `json:"patch_apply"`
	FailOnlyRepos  map[string]Listed `json:"fail_only_repos"`
	NonTestExts    map[string]Listed `json:"non_test_exts"`
	Repos          map[string]Repo   `json:"repos"`
}

//go:embed specs.json
var raw []byte

var data = func() Data {
	var d Data
	if err := json.Unmarshal(raw, &d); err != nil {
		panic(fmt.Sprintf("internal/swebench/specs/specs.json: %v (regenerate it with hack/swebench-goldens/specs_data.py)", err))
	}
	return d
}()

// All is the whole data file.
func All() Data { return data }

// Lookup is the repository's entry.
func Lookup(repo string) (Repo, bool) {
	r, ok := data.Repos[repo]
	return r, ok
}

// KnownRepos lists the repositories some official repository → parser map names (v4.1.0's
// MAP_REPO_TO_PARSER, v5.0.1's MAP_REPO_TO_PARSER_<language>), sorted without regard to case:
// the repositories an instance may come from. (v4.1.0's specs also hold dbt-labs/dbt-core and
// swe-bench/humaneval, which no map names: the official harness cannot grade them.)
func KnownRepos() []string {
	var out []string
	for name, r := range data.Repos {
		if len(r.Parsers) > 0 {
			out = append(out, name)
		}
	}
	sortFold(out)
	return out
}

// Known says whether some official repository → parser map names repo.
func Known(repo string) bool { return len(data.Repos[repo].Parsers) > 0 }

func sortFold(names []string) {
	sort.Slice(names, func(i, j int) bool {
		a, b := strings.ToLower(names[i]), strings.ToLower(names[j])
		return a < b || a == b && names[i] < names[j]
	})
}

// MappedRepos lists the repositories the tag's repository → parser maps name, sorted.
func MappedRepos(tag string) []string {
	var out []string
	for name, r := range data.Repos {
		if _, ok := r.Parsers[tag]; ok {
			out = append(out, name)
		}
	}
	sortFold(out)
	return out
}

// UnknownRepoError is an instance's repository that no official map names.
type UnknownRepoError struct {
	InstanceID, Repo string
}

func (e *UnknownRepoError) Error() string {
	return fmt.Sprintf("instance %s: field repo: unknown repository %q: known: %s (the repositories of SWE-bench v4.1.0's specs and parser map and of v5.0.1's parser maps); for a dataset of your own, name the parser in the instance's log_parser",
		e.InstanceID, e.Repo, strings.Join(KnownRepos(), ", "))
}

// VersionNames lists the repository's versions in v4.1.0's specs, sorted.
func (r Repo) VersionNames() []string {
	out := make([]string, 0, len(r.Versions))
	for v := range r.Versions {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
