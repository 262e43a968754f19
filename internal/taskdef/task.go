// Package taskdef reads Harbor task definitions (task.toml, schema 1.4) into a typed Task.
// Unknown keys are tolerated, as Harbor does; deprecated keys are read.
package taskdef

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Network modes of Harbor.
const (
	NetworkNone      = "no-network"
	NetworkPublic    = "public"
	NetworkAllowlist = "allowlist"
)

// Verifier environment modes.
const (
	VerifierSeparate = "separate"
	VerifierShared   = "shared"
)

// Defaults Harbor applies.
const (
	DefaultVerifierTimeoutSec = 600
	DefaultAgentTimeoutSec    = 3600
	DefaultCollectTimeoutSec  = 60
	DefaultBuildTimeoutSec    = 600
)

// MetadataBugsKey is the [metadata] key where a task declares its bug count (SWE-sweep's
// task.toml). It shares its spelling with the result key reward.KeySubtasks, but it is the
// task's declaration, read before any verifier ran.
const MetadataBugsKey = "n_subtasks"

// Task is one task.toml.
type Task struct {
	// Name is the top-level name or [task].name.
	Name          string
	SchemaVersion string
	Artifacts     []Artifact
	Metadata      map[string]any
	// Bugs is [metadata].n_subtasks, or 0 when the task does not say.
	Bugs        int
	Environment Environment
	Agent       Stage
	Verifier    Verifier
	Collect     []CollectHook
}

// Environment is [environment].
type Environment struct {
	DockerImage     string
	Workdir         string
	CPUs            float64
	MemoryMB        int64
	StorageMB       int64
	GPUs            int64
	BuildTimeoutSec float64
	NetworkMode     string
	AllowedHosts    []string
	Env             map[string]string
}

// Stage holds the settings [agent] and [verifier] share.
type Stage struct {
	TimeoutSec   float64
	User         string
	NetworkMode  string
	AllowedHosts []string
}

// Verifier is [verifier].
type Verifier struct {
	Stage
	Env             map[string]string
	EnvironmentMode string
	// Environment is [verifier.environment], when the verifier has its own.
	Environment *Environment
}

// CollectHook is one [[verifier.collect]].
type CollectHook struct {
	Command    string
	TimeoutSec float64
	User       string
	Service    string
}

// Artifact is one entry of the top-level artifacts list.
type Artifact struct {
	Source      string
	Destination string
	Exclude     []string
}

// Error names the file, the key and what is wrong.
type Error struct {
	File string
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s: key %q: %s", e.File, e.Key, e.Msg)
}

// Parse reads a task.toml. file names it in errors.
func Parse(file string, data []byte) (*Task, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		msg := err.Error()
		if perr, ok := err.(toml.ParseError); ok {
			msg = fmt.Sprintf("line %d: %s", perr.Position.Line, perr.Message)
		}
		return nil, &Error{File: file, Msg: "not valid TOML: " + msg}
	}
	r := reader{file: file}
	t := &Task{}
	t.SchemaVersion = r.str(raw, "schema_version", "")
	if t.SchemaVersion == "" {
		t.SchemaVersion = r.str(raw, "version", "")
	}
	taskTable := r.table(raw, "task")
	t.Name = r.str(raw, "name", r.str(taskTable, "task.name", ""))
	t.Metadata = r.table(raw, "metadata")
	if n, ok := t.Metadata[MetadataBugsKey]; ok {
		t.Bugs = int(r.intValue("metadata."+MetadataBugsKey, n))
		if t.Bugs < 0 {
			r.fail("metadata."+MetadataBugsKey, "must not be negative")
		}
	}
	t.Artifacts = r.artifacts(raw)
	t.Environment = r.environment(r.table(raw, "environment"), "environment", NetworkPublic)
	t.Agent = r.stage(r.table(raw, "agent"), "agent", DefaultAgentTimeoutSec, t.Environment.NetworkMode)
	t.Verifier = r.verifier(r.table(raw, "verifier"), t.Environment.NetworkMode)
	t.Collect = r.collect(r.table(raw, "verifier"))
	if r.err != nil {
		return nil, r.err
	}
	return t, nil
}

// reader extracts typed values, keeping the first error with its key.
type reader struct {
	file string
	err  *Error
}

func (r *reader) fail(key, format string, args ...any) {
	if r.err == nil {
		r.err = &Error{File: r.file, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

func leaf(key string) string { return key[strings.LastIndex(key, ".")+1:] }

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("string %q", v)
	case map[string]any:
		return "a table"
	case []map[string]any, []any:
		return "an array"
	}
	return fmt.Sprintf("%T %v", v, v)
}

func (r *reader) table(tbl map[string]any, key string) map[string]any {
	v, ok := tbl[leaf(key)]
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		r.fail(key, "want a table, got %s", describe(v))
		return nil
	}
	return m
}

func (r *reader) str(tbl map[string]any, key, def string) string {
	v, ok := tbl[leaf(key)]
	if !ok {
		return def
	}
	s, ok := v.(string)
	if !ok {
		r.fail(key, "want a string, got %s", describe(v))
		return def
	}
	return s
}

func (r *reader) boolean(tbl map[string]any, key string) (value, set bool) {
	v, ok := tbl[leaf(key)]
	if !ok {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		r.fail(key, "want true or false, got %s", describe(v))
	}
	return b, true
}

func (r *reader) number(tbl map[string]any, key string, def float64) float64 {
	v, ok := tbl[leaf(key)]
	if !ok {
		return def
	}
	var f float64
	switch n := v.(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		r.fail(key, "want a number, got %s", describe(v))
		return def
	}
	if f < 0 {
		r.fail(key, "must not be negative, got %v", f)
	}
	return f
}

func (r *reader) intValue(key string, v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		if n == float64(int64(n)) {
			return int64(n)
		}
	}
	r.fail(key, "want a whole number, got %s", describe(v))
	return 0
}

func (r *reader) integer(tbl map[string]any, key string) int64 {
	v, ok := tbl[leaf(key)]
	if !ok {
		return 0
	}
	n := r.intValue(key, v)
	if n < 0 {
		r.fail(key, "must not be negative, got %d", n)
	}
	return n
}

func (r *reader) strings(tbl map[string]any, key string) []string {
	v, ok := tbl[leaf(key)]
	if !ok {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		r.fail(key, "want a list of strings, got %s", describe(v))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			r.fail(fmt.Sprintf("%s[%d]", key, i), "want a string, got %s", describe(item))
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (r *reader) env(tbl map[string]any, key string) map[string]string {
	m := r.table(tbl, key)
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		switch v := v.(type) {
		case string:
			out[k] = v
		case int64, float64, bool:
			out[k] = fmt.Sprint(v)
		default:
			r.fail(join(key, k), "want a string, got %s", describe(v))
		}
	}
	return out
}

func (r *reader) networkMode(tbl map[string]any, key, def string) string {
	mode := r.str(tbl, key, def)
	switch mode {
	case NetworkNone, NetworkPublic, NetworkAllowlist:
		return mode
	}
	r.fail(key, "want one of no-network, public, allowlist, got %q", mode)
	return def
}

func (r *reader) environment(tbl map[string]any, prefix, defaultNetwork string) Environment {
	e := Environment{
		DockerImage:     r.str(tbl, join(prefix, "docker_image"), ""),
		Workdir:         r.str(tbl, join(prefix, "workdir"), ""),
		CPUs:            r.number(tbl, join(prefix, "cpus"), 1),
		MemoryMB:        r.integer(tbl, join(prefix, "memory_mb")),
		StorageMB:       r.integer(tbl, join(prefix, "storage_mb")),
		GPUs:            r.integer(tbl, join(prefix, "gpus")),
		BuildTimeoutSec: r.number(tbl, join(prefix, "build_timeout_sec"), DefaultBuildTimeoutSec),
		NetworkMode:     defaultNetwork,
		AllowedHosts:    r.strings(tbl, join(prefix, "allowed_hosts")),
		Env:             r.env(tbl, join(prefix, "env")),
	}
	// Deprecated spellings: memory / storage as "2G", allow_internet as a bool.
	if e.MemoryMB == 0 {
		e.MemoryMB = r.size(tbl, join(prefix, "memory"))
	}
	if e.StorageMB == 0 {
		e.StorageMB = r.size(tbl, join(prefix, "storage"))
	}
	if allow, set := r.boolean(tbl, join(prefix, "allow_internet")); set && !allow {
		e.NetworkMode = NetworkNone
	}
	if _, set := tbl["network_mode"]; set {
		e.NetworkMode = r.networkMode(tbl, join(prefix, "network_mode"), defaultNetwork)
	}
	if e.Workdir != "" && !path.IsAbs(e.Workdir) {
		r.fail(join(prefix, "workdir"), "must be an absolute path, got %q", e.Workdir)
	}
	return e
}

var sizePattern = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)i?B?$`)

// size reads a deprecated size string such as "2G" or "512M" as MiB.
func (r *reader) size(tbl map[string]any, key string) int64 {
	s := r.str(tbl, key, "")
	if s == "" {
		return 0
	}
	m := sizePattern.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(s)))
	if m == nil {
		r.fail(key, "want a size such as \"2G\" or \"512M\", got %q", s)
		return 0
	}
	n, _ := strconv.ParseFloat(m[1], 64)
	scale := map[string]float64{"": 1.0 / (1 << 20), "K": 1.0 / 1024, "M": 1, "G": 1024, "T": 1 << 20}[m[2]]
	return int64(n * scale)
}

func (r *reader) stage(tbl map[string]any, prefix string, defaultTimeout float64, defaultNetwork string) Stage {
	s := Stage{
		TimeoutSec:   r.number(tbl, join(prefix, "timeout_sec"), defaultTimeout),
		User:         r.str(tbl, join(prefix, "user"), ""),
		NetworkMode:  r.networkMode(tbl, join(prefix, "network_mode"), defaultNetwork),
		AllowedHosts: r.strings(tbl, join(prefix, "allowed_hosts")),
	}
	if s.TimeoutSec == 0 {
		r.fail(join(prefix, "timeout_sec"), "must be greater than 0")
	}
	if len(s.AllowedHosts) > 0 && s.NetworkMode != NetworkAllowlist {
		r.fail(join(prefix, "allowed_hosts"), "only allowed with network_mode = \"allowlist\", not %q", s.NetworkMode)
	}
	return s
}

func (r *reader) verifier(tbl map[string]any, defaultNetwork string) Verifier {
	v := Verifier{
		Stage: r.stage(tbl, "verifier", DefaultVerifierTimeoutSec, defaultNetwork),
		Env:   r.env(tbl, "verifier.env"),
	}
	if envTable := r.table(tbl, "verifier.environment"); envTable != nil {
		e := r.environment(envTable, "verifier.environment", defaultNetwork)
		v.Environment = &e
	}
	v.EnvironmentMode = r.str(tbl, "verifier.environment_mode", "")
	switch {
	case v.EnvironmentMode == "" && v.Environment != nil:
		v.EnvironmentMode = VerifierSeparate
	case v.EnvironmentMode == "":
		v.EnvironmentMode = VerifierShared
	case v.EnvironmentMode == VerifierShared && v.Environment != nil:
		r.fail("verifier.environment_mode", "\"shared\" cannot have a [verifier.environment]; use \"separate\" or remove the table")
	case v.EnvironmentMode != VerifierShared && v.EnvironmentMode != VerifierSeparate:
		r.fail("verifier.environment_mode", "want \"shared\" or \"separate\", got %q", v.EnvironmentMode)
	}
	return v
}

func (r *reader) collect(verifier map[string]any) []CollectHook {
	v, ok := verifier["collect"]
	if !ok {
		return nil
	}
	list, ok := v.([]map[string]any)
	if !ok {
		r.fail("verifier.collect", "want an array of tables ([[verifier.collect]]), got %s", describe(v))
		return nil
	}
	hooks := make([]CollectHook, 0, len(list))
	for i, tbl := range list {
		prefix := fmt.Sprintf("verifier.collect[%d]", i)
		h := CollectHook{
			Command:    r.str(tbl, prefix+".command", ""),
			TimeoutSec: r.number(tbl, prefix+".timeout_sec", DefaultCollectTimeoutSec),
			User:       r.str(tbl, prefix+".user", ""),
			Service:    r.str(tbl, prefix+".service", "main"),
		}
		if strings.TrimSpace(h.Command) == "" {
			r.fail(prefix+".command", "is required")
		}
		hooks = append(hooks, h)
	}
	return hooks
}

func (r *reader) artifacts(raw map[string]any) []Artifact {
	v, ok := raw["artifacts"]
	if !ok {
		return nil
	}
	var items []any
	switch list := v.(type) {
	case []any:
		items = list
	case []map[string]any:
		for _, m := range list {
			items = append(items, m)
		}
	default:
		r.fail("artifacts", "want a list of paths or tables, got %s", describe(v))
		return nil
	}
	out := make([]Artifact, 0, len(items))
	for i, item := range items {
		key := fmt.Sprintf("artifacts[%d]", i)
		var a Artifact
		switch item := item.(type) {
		case string:
			a.Source = item
		case map[string]any:
			a.Source = r.str(item, key+".source", "")
			a.Destination = r.str(item, key+".destination", "")
			a.Exclude = r.strings(item, key+".exclude")
		default:
			r.fail(key, "want a path or a table, got %s", describe(item))
			continue
		}
		switch {
		case a.Source == "":
			r.fail(key, "source is required")
		case !path.IsAbs(a.Source):
			r.fail(key, "must be an absolute path, got %q", a.Source)
		case strings.Contains(a.Source, ".."):
			r.fail(key, "must not contain \"..\", got %q", a.Source)
		}
		out = append(out, a)
	}
	return out
}
