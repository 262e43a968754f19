package podbuild

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const sampleTOML = `
name = "calc"
artifacts = ["/logs/artifacts/model.patch"]
[metadata]
n_subtasks = 3
[environment]
workdir = "/repo"
cpus = 2
memory_mb = 1024
storage_mb = 2048
[agent]
timeout_sec = 120
network_mode = "no-network"
[verifier]
timeout_sec = 60
environment_mode = "separate"
network_mode = "no-network"
env = { PYTHONHASHSEED = "0" }
[[verifier.collect]]
command = "cd /repo && git add -A && git diff --cached --binary baseline > /logs/artifacts/model.patch"
timeout_sec = 30
`

func sampleTask(t *testing.T) *taskdef.Task {
	t.Helper()
	task, err := taskdef.Parse("task.toml", []byte(sampleTOML))
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func golden(t *testing.T, name string, obj any) {
	t.Helper()
	got, err := yaml.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("testdata", name+".golden.yaml")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/podbuild -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got); if intended, run with -update:\n%s", file, diff)
	}
}

func TestJobGolden(t *testing.T) {
	task := sampleTask(t)
	cases := map[string]struct {
		trial *evalv1.TaskTrial
		stage podcontract.Stage
	}{
		"agent-patch": {makeTrial("run-calc-1", "calc").agent(evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}}).obj(), podcontract.StageAgent},
		"agent-oracle": {makeTrial("run-calc-1", "calc").agent(evalv1.AgentSpec{Oracle: &evalv1.OracleAgent{}}).solution("calc-solution").
			queue("benchmarks").placement(evalv1.Placement{NodeSelector: map[string]string{"pool": "eval"}, PriorityClassName: "low"}).obj(), podcontract.StageAgent},
		"agent-external": {makeTrial("run-calc-1", "calc").agent(evalv1.AgentSpec{External: &evalv1.ExternalAgent{
			Image: "agents/claw:1", BundlePath: "/agent", Command: []string{"/sweep/agent/run"}, Env: credentialEnv}}).timeouts("2", "").obj(), podcontract.StageAgent},
		"verifier-swesweep": {makeTrial("run-calc-1", "calc").grader(podcontract.GraderSWESweep).obj(), podcontract.StageVerifier},
		"verifier-swebench": {makeTrial("run-calc-1", "calc").grader(podcontract.GraderSWEBench).graderConfig("calc-swebench").obj(), podcontract.StageVerifier},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			timeouts, err := StageTimeouts(tc.trial, task)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Resources(tc.trial.Spec.Resources, task.Environment)
			if err != nil {
				t.Fatal(err)
			}
			specJSON, err := StageSpec(tc.trial, task, tc.stage, timeouts)
			if err != nil {
				t.Fatal(err)
			}
			job := Job(JobInput{Trial: tc.trial, Task: task, Stage: tc.stage, Run: 1, HookImage: "sweep/hook:v1", Timeouts: timeouts, Resources: res, StageSpec: specJSON})
			golden(t, "job-"+name, job)
			var spec podcontract.StageSpec
			if err := json.Unmarshal([]byte(job.Spec.Template.Annotations[StageSpecAnnotation]), &spec); err != nil {
				t.Fatalf("the Pod's stage spec annotation: %v", err)
			}
			golden(t, "spec-"+name, spec)
		})
	}
}

func TestJobInvariants(t *testing.T) {
	task := sampleTask(t)
	trial := makeTrial("t", "calc").obj()
	for _, stage := range []podcontract.Stage{podcontract.StageAgent, podcontract.StageVerifier} {
		job := Job(JobInput{Trial: trial, Task: task, Stage: stage, Run: 2, HookImage: "hook", Timeouts: Timeouts{Agent: 100, Verifier: 50}})
		pod := job.Spec.Template.Spec
		if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
			t.Errorf("%s: service-account token mounted", stage)
		}
		if got := job.Spec.Template.Labels[evalv1.LabelStage]; got != string(stage) {
			t.Errorf("%s: stage label %q", stage, got)
		}
		for _, c := range append(pod.InitContainers, pod.Containers...) {
			for _, m := range c.VolumeMounts {
				if m.MountPath == podcontract.SolutionDir || m.MountPath == "/tests" {
					t.Errorf("%s: container %s mounts %s", stage, c.Name, m.MountPath)
				}
			}
		}
		collector := pod.InitContainers[len(pod.InitContainers)-1]
		if collector.RestartPolicy == nil || *collector.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			t.Errorf("%s: collector is not a native sidecar", stage)
		}
	}
	agentJob := Job(JobInput{Trial: trial, Task: task, Stage: podcontract.StageAgent, Run: 1, HookImage: "hook", Timeouts: Timeouts{Agent: 100, Verifier: 50}})
	if got, want := *agentJob.Spec.ActiveDeadlineSeconds, int64(100+30+GraceSeconds+StartAllowanceSeconds); got != want {
		t.Errorf("agent deadline = %d, want %d (timeout + collect hooks + grace + start allowance)", got, want)
	}
}

// TestQueuedJobLabels: a queued trial's Jobs are created suspended with the queue's label,
// and each stage's Job carries its own WorkloadPriorityClass.
func TestQueuedJobLabels(t *testing.T) {
	task := sampleTask(t)
	type labels struct {
		Suspended     bool
		Queue, Class  string
		HasClassLabel bool
	}
	for _, tc := range []struct {
		name    string
		classes *evalv1.WorkloadPriorityClasses
		stage   podcontract.Stage
		queue   string
		want    labels
	}{
		{name: "no queue", stage: podcontract.StageAgent, classes: &evalv1.WorkloadPriorityClasses{Agent: "a"}, want: labels{}},
		{name: "queue, no classes", stage: podcontract.StageAgent, queue: "q", want: labels{Suspended: true, Queue: "q"}},
		{name: "agent class", stage: podcontract.StageAgent, queue: "q", classes: &evalv1.WorkloadPriorityClasses{Agent: "agents", Verifier: "verifiers"},
			want: labels{Suspended: true, Queue: "q", Class: "agents", HasClassLabel: true}},
		{name: "verifier class", stage: podcontract.StageVerifier, queue: "q", classes: &evalv1.WorkloadPriorityClasses{Agent: "agents", Verifier: "verifiers"},
			want: labels{Suspended: true, Queue: "q", Class: "verifiers", HasClassLabel: true}},
		{name: "only the verifier raised", stage: podcontract.StageAgent, queue: "q", classes: &evalv1.WorkloadPriorityClasses{Verifier: "verifiers"},
			want: labels{Suspended: true, Queue: "q"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trial := makeTrial("t", "calc").queue(tc.queue).obj()
			trial.Spec.WorkloadPriorityClasses = tc.classes
			job := Job(JobInput{Trial: trial, Task: task, Stage: tc.stage, Run: 1, HookImage: "hook", Timeouts: Timeouts{Agent: 100, Verifier: 50}})
			class, has := job.Labels[PriorityClassLabel]
			got := labels{Suspended: job.Spec.Suspend != nil && *job.Spec.Suspend, Queue: job.Labels[QueueLabel], Class: class, HasClassLabel: has}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("job (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTimeoutAndResourceErrors(t *testing.T) {
	task := sampleTask(t)
	if _, err := StageTimeouts(makeTrial("t", "calc").timeouts("-1", "").obj(), task); err == nil ||
		err.Error() != `spec.timeouts.agentMultiplier: want a positive decimal such as "1.5", got "-1"` {
		t.Errorf("StageTimeouts error = %v", err)
	}
	_, err := Resources(&evalv1.ResourcePolicy{Mode: evalv1.ResourcesScaled, Scale: "x"}, task.Environment)
	if err == nil || err.Error() != `spec.resources.scale: want a positive decimal such as "0.25", got "x"` {
		t.Errorf("Resources error = %v", err)
	}
	if _, err := Resources(&evalv1.ResourcePolicy{Mode: evalv1.ResourcesOverride}, task.Environment); err == nil {
		t.Error("Resources with Override and no override: no error")
	}
}

func TestScaledResources(t *testing.T) {
	task := sampleTask(t)
	got, err := Resources(&evalv1.ResourcePolicy{Mode: evalv1.ResourcesScaled, Scale: "0.5"}, task.Environment)
	if err != nil {
		t.Fatal(err)
	}
	if cpu, mem := got.Requests.Cpu().String(), got.Limits.Memory().String(); cpu != "1" || mem != "512Mi" {
		t.Errorf("scaled: cpu %s memory %s, want 1 and 512Mi", cpu, mem)
	}
}

func TestEgressRules(t *testing.T) {
	cases := map[string]struct {
		stage          taskdef.Stage
		wantRestricted bool
		wantCIDRs      []string
	}{
		"public":     {stage: taskdef.Stage{NetworkMode: taskdef.NetworkPublic}},
		"unset":      {stage: taskdef.Stage{}},
		"no-network": {stage: taskdef.Stage{NetworkMode: taskdef.NetworkNone}, wantRestricted: true},
		"allowlist: IPs and CIDRs, a hostname allows nothing": {stage: taskdef.Stage{NetworkMode: taskdef.NetworkAllowlist,
			AllowedHosts: []string{"10.1.2.3", "192.168.0.0/16", "api.example.com", "::1"}},
			wantRestricted: true, wantCIDRs: []string{"10.1.2.3/32", "192.168.0.0/16", "::1/128"}},
		"allowlist of hostnames only: no egress": {stage: taskdef.Stage{NetworkMode: taskdef.NetworkAllowlist, AllowedHosts: []string{"api.example.com"}},
			wantRestricted: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rules, restricted := EgressRules(tc.stage)
			if restricted != tc.wantRestricted {
				t.Fatalf("restricted = %v, want %v", restricted, tc.wantRestricted)
			}
			if restricted && rules == nil {
				t.Errorf("a restricted stage's rules are nil, which a NetworkPolicy reads as no egress section")
			}
			var cidrs []string
			for _, r := range rules {
				for _, p := range r.To {
					cidrs = append(cidrs, p.IPBlock.CIDR)
				}
			}
			if diff := cmp.Diff(tc.wantCIDRs, cidrs); diff != "" {
				t.Errorf("CIDRs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArtifactKey(t *testing.T) {
	arts := []taskdef.Artifact{{Source: "/logs/artifacts/model.patch"}, {Source: "/a/out.txt"}, {Source: "/b/out.txt"}}
	got := []string{ArtifactKey(arts, 0), ArtifactKey(arts, 1), ArtifactKey(arts, 2)}
	if diff := cmp.Diff([]string{"model.patch", "out.txt", "2-out.txt"}, got); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

// The verifier reads its grader's input from the grader ConfigMap when the trial has one, else
// from where the grader says; an unknown grader is refused with the names that exist.
func TestVerifierStageSpecGraderDir(t *testing.T) {
	task := sampleTask(t)
	tests := map[string]struct {
		grader, configMap string
		wantDir, wantErr  string
	}{
		"test script":                {},
		"test script with ConfigMap": {configMap: "cm", wantDir: podcontract.GraderConfigDir},
		"swesweep":                   {grader: podcontract.GraderSWESweep, wantDir: podcontract.TestsDir},
		"swebench":                   {grader: podcontract.GraderSWEBench, configMap: "cm", wantDir: podcontract.GraderConfigDir},
		"unknown":                    {grader: "magic", wantErr: `spec.grader: unknown grader "magic": use one of `},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			trial := makeTrial("run-calc-1", "calc").grader(tc.grader).graderConfig(tc.configMap).obj()
			spec, err := VerifierStageSpec(trial, task, Timeouts{Verifier: 60})
			if tc.wantErr != "" {
				sweeptest.ErrorContains(t, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if spec.Verifier.GraderDir != tc.wantDir {
				t.Errorf("graderDir = %q, want %q", spec.Verifier.GraderDir, tc.wantDir)
			}
		})
	}
}

// The trial's spec.grading.flakeRechecks reaches the verifier's stage spec; no policy is 0.
func TestVerifierStageSpecFlakeRechecks(t *testing.T) {
	task := sampleTask(t)
	for name, tc := range map[string]struct {
		grading *evalv1.GradingPolicy
		want    int32
	}{
		"no policy": {},
		"off":       {grading: &evalv1.GradingPolicy{}},
		"on":        {grading: &evalv1.GradingPolicy{FlakeRechecks: 3}, want: 3},
	} {
		t.Run(name, func(t *testing.T) {
			trial := makeTrial("run-calc-1", "calc").grader(podcontract.GraderSWESweep).obj()
			trial.Spec.Grading = tc.grading
			spec, err := VerifierStageSpec(trial, task, Timeouts{Verifier: 60})
			if err != nil {
				t.Fatal(err)
			}
			if spec.Verifier.FlakeRechecks != tc.want {
				t.Errorf("verifier.flakeRechecks = %d, want %d", spec.Verifier.FlakeRechecks, tc.want)
			}
		})
	}
}

func TestNetworkPolicies(t *testing.T) {
	campaignTrial := makeTrial("t", "calc").obj()
	campaignTrial.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(&evalv1.SweepRun{ObjectMeta: metav1.ObjectMeta{Name: "run", UID: "run-uid"}},
		evalv1.GroupVersion.WithKind("SweepRun"))}
	lone := makeTrial("t", "calc").obj()
	lone.UID = "t-uid"
	none := taskdef.Stage{NetworkMode: taskdef.NetworkNone}
	public := taskdef.Stage{NetworkMode: taskdef.NetworkPublic}
	allow := func(hosts ...string) taskdef.Stage {
		return taskdef.Stage{NetworkMode: taskdef.NetworkAllowlist, AllowedHosts: hosts}
	}
	noneClass, allowClass := EgressClass(none), EgressClass(allow("10.0.0.1"))
	type policy struct {
		Name     string
		Selector map[string]string
		Owner    string
		CIDRs    []string
	}
	inRun := func(class string, cidrs ...string) policy {
		return policy{Name: "run-egress-" + class, Selector: map[string]string{evalv1.LabelSweepRun: "run", evalv1.LabelEgress: class}, Owner: "SweepRun/run", CIDRs: cidrs}
	}
	cases := map[string]struct {
		trial           *evalv1.TaskTrial
		agent, verifier taskdef.Stage
		want            []policy
	}{
		"both without network: the campaign's one policy": {trial: campaignTrial, agent: none, verifier: none, want: []policy{inRun(noneClass)}},
		"the same allowlist: one policy": {trial: campaignTrial, agent: allow("10.0.0.1"), verifier: allow("10.0.0.1"),
			want: []policy{inRun(allowClass, "10.0.0.1/32")}},
		"a hostname the policy cannot hold makes no difference": {trial: campaignTrial, agent: none, verifier: allow("api.example.com"),
			want: []policy{inRun(noneClass)}},
		"different allowlists: one a class": {trial: campaignTrial, agent: allow("10.0.0.1"), verifier: none,
			want: []policy{inRun(allowClass, "10.0.0.1/32"), inRun(noneClass)}},
		"a public agent: the verifier's only": {trial: campaignTrial, agent: public, verifier: none, want: []policy{inRun(noneClass)}},
		"both public: none":                   {trial: campaignTrial, agent: public, verifier: public},
		"a trial of no campaign owns its own": {trial: lone, agent: none, verifier: none,
			want: []policy{{Name: "t-egress-" + noneClass, Selector: map[string]string{evalv1.LabelTrial: "t", evalv1.LabelEgress: noneClass}, Owner: "TaskTrial/t"}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var got []policy
			for _, np := range NetworkPolicies(tc.trial, tc.agent, tc.verifier) {
				owner := metav1.GetControllerOf(np)
				p := policy{Name: np.Name, Selector: np.Spec.PodSelector.MatchLabels, Owner: owner.Kind + "/" + owner.Name}
				for _, r := range np.Spec.Egress {
					for _, peer := range r.To {
						p.CIDRs = append(p.CIDRs, peer.IPBlock.CIDR)
					}
				}
				if np.Spec.Egress == nil || len(np.Spec.PolicyTypes) != 1 || np.Spec.PolicyTypes[0] != "Egress" {
					t.Errorf("policy %s does not restrict egress: %+v", np.Name, np.Spec)
				}
				got = append(got, p)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("NetworkPolicies (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEgressClass(t *testing.T) {
	none := EgressClass(taskdef.Stage{NetworkMode: taskdef.NetworkNone})
	if none == "" || len(none) != 16 {
		t.Errorf("no-network class = %q, want 16 hex digits", none)
	}
	if got := EgressClass(taskdef.Stage{NetworkMode: taskdef.NetworkAllowlist, AllowedHosts: []string{"api.example.com"}}); got != none {
		t.Errorf("an allowlist that allows nothing is class %q, want no-network's %q", got, none)
	}
	if got := EgressClass(taskdef.Stage{NetworkMode: taskdef.NetworkAllowlist, AllowedHosts: []string{"10.0.0.1"}}); got == none {
		t.Errorf("an allowlist with an address shares no-network's class %q", got)
	}
	if got := EgressClass(taskdef.Stage{NetworkMode: taskdef.NetworkPublic}); got != "" {
		t.Errorf("public class = %q, want none", got)
	}
}
