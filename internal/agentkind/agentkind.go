// Package agentkind is the one table of agent kinds. A kind's name is the same word in every
// layer: the spec.agent field of a SweepRun or TaskTrial that selects it, the agent.kind of
// the stage spec sweep-hook reads, and the logs. Its descriptor says what the agent Pod
// mounts for it, what it needs from the trial, and what sweep-hook runs. The package has no
// Kubernetes dependency so that sweep-hook, inside the trial Pod, reads the same table as the
// controller.
//
// To add a kind: add its field to api/v1alpha1.AgentSpec (and to the CEL "exactly one" rule),
// add one descriptor below, and, if it needs a new run mode or mount, the mode's runner in
// internal/hook/agent.go or the mount in internal/podbuild/agent.go.
package agentkind

import "strings"

// Kind names.
const (
	Patch    = "patch"
	Oracle   = "oracle"
	Nop      = "nop"
	External = "external"
)

// Mount is what the agent Pod mounts for a kind, besides what every agent Pod mounts.
type Mount string

const (
	// MountNothing adds nothing.
	MountNothing Mount = ""
	// MountPatchSecret mounts the key named after the task from the Secret
	// spec.agent.patch.secretName at podcontract.InputDir/podcontract.AgentPatchFile.
	MountPatchSecret Mount = "patch-secret"
	// MountSolution mounts the trial's spec.solutionConfigMap at podcontract.SolutionDir.
	MountSolution Mount = "solution-configmap"
	// MountBundle runs an init container from spec.agent.external.image that copies its
	// bundlePath to podcontract.AgentBundleDir.
	MountBundle Mount = "bundle"
)

// RunMode is what sweep-hook runs as the agent.
type RunMode string

const (
	// RunNothing changes nothing.
	RunNothing RunMode = "nothing"
	// RunInputPatch applies the mounted patch with git apply.
	RunInputPatch RunMode = "input-patch"
	// RunSolution runs the solution's solve.sh, or else applies its *.patch files in order.
	RunSolution RunMode = "solution"
	// RunCommand runs the stage spec's agent command and args in the task's workdir.
	RunCommand RunMode = "command"
)

// Descriptor is one agent kind.
type Descriptor struct {
	// Name is the kind's one name: the json name of its spec.agent field and the stage
	// spec's agent.kind.
	Name string
	// Mount is what the agent Pod mounts for it.
	Mount Mount
	// NeedsSolution says the trial must name the task's solution ConfigMap
	// (spec.solutionConfigMap, copied from the task ConfigMap's solution annotation).
	NeedsSolution bool
	// Run is what sweep-hook runs.
	Run RunMode
}

var descriptors = []Descriptor{
	{Name: Patch, Mount: MountPatchSecret, Run: RunInputPatch},
	{Name: Oracle, Mount: MountSolution, NeedsSolution: true, Run: RunSolution},
	{Name: Nop, Mount: MountNothing, Run: RunNothing},
	{Name: External, Mount: MountBundle, Run: RunCommand},
}

// All lists every kind in the order the API documents them.
func All() []Descriptor { return append([]Descriptor(nil), descriptors...) }

// Lookup finds the kind with this name.
func Lookup(name string) (Descriptor, bool) {
	for _, d := range descriptors {
		if d.Name == name {
			return d, true
		}
	}
	return Descriptor{}, false
}

// Field is the SweepRun and TaskTrial field that selects the kind.
func (d Descriptor) Field() string { return "spec.agent." + d.Name }

// Names lists the kind names for messages: "patch, oracle, nop or external".
func Names() string {
	names := make([]string, len(descriptors))
	for i, d := range descriptors {
		names[i] = d.Name
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
