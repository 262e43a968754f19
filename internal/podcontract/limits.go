package podcontract

import (
	"regexp"
	"strings"

	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/usage"
)

// DefaultLimits are the limits used when a StageSpec sets none. The kubelet rotates a
// container's log at 10 MiB by default (containerLogMaxSize) and the API then serves only the
// newest file, so the whole encoded stream must stay below that.
func DefaultLimits() Limits {
	return Limits{
		MaxRecordBytes: 16 << 20,
		MaxStreamBytes: 8 << 20,
		MaxLogBytes:    8 << 20,
	}
}

// WithDefaults fills the unset (zero or negative) fields of l from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.MaxRecordBytes <= 0 {
		l.MaxRecordBytes = d.MaxRecordBytes
	}
	if l.MaxStreamBytes <= 0 {
		l.MaxStreamBytes = d.MaxStreamBytes
	}
	if l.MaxLogBytes <= 0 {
		l.MaxLogBytes = d.MaxLogBytes
	}
	return l
}

// Record names besides the artifact keys.
const (
	RecordAgentLog   = "agent.log"
	RecordTestStdout = "test-stdout.txt"
	RecordReward     = reward.FileJSON
	RecordEval       = "eval.json"
	// RecordSWEBenchReport is the SWE-bench grader's per-instance report.json (official schema),
	// written for completed instances only; the verifier sends it when its grader is swebench.
	RecordSWEBenchReport = "report.json"
	// PatchKey is the artifact key of PatchPath.
	PatchKey = "model.patch"
)

// AgentLogPath is where the agent stage keeps the agent's merged, capped output.
const AgentLogPath = AgentLogDir + "/" + RecordAgentLog

// UsagePath is where any agent may write what it says it spent (internal/usage: Harbor's
// n_input_tokens, n_cache_tokens, n_output_tokens and cost_usd); the collector reports it in
// the agent stage's summary.
const UsagePath = AgentLogDir + "/" + usage.FileName

// MaxUsageMessageBytes bounds Summary.UsageMessage, so that a usage file's error cannot
// crowd the rest out of a termination message.
const MaxUsageMessageBytes = 256

// validName is a Secret data key, so that every record can also be stored in one.
var validName = regexp.MustCompile(`^[-._a-zA-Z0-9]{1,253}$`)

// ValidRecordName reports whether name can name a record (and a Secret key, which may not
// start with "..").
func ValidRecordName(name string) bool {
	return validName.MatchString(name) && name != "." && !strings.HasPrefix(name, "..")
}
