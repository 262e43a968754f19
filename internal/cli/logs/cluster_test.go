package logs_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/clitest"
	"github.com/swe-sweep/sweep-operator/internal/cli/logs"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// fakePodLogs serves container logs by "pod/container", as pods/log would, and notes which
// were followed. envtest has no kubelet to serve them.
type fakePodLogs struct {
	logs     map[string]string
	followed []string
}

func (f *fakePodLogs) ContainerLog(_ context.Context, _, pod, container string, follow bool) (io.ReadCloser, error) {
	log, ok := f.logs[pod+"/"+container]
	if !ok {
		return nil, fmt.Errorf("container %s of pod %s has no log", container, pod)
	}
	if follow {
		f.followed = append(f.followed, pod+"/"+container)
	}
	return io.NopCloser(strings.NewReader(log)), nil
}

// stagePod creates the Pod of a trial's stage with status, as the Job controller and the
// kubelet would.
func stagePod(t *testing.T, cl client.Client, trial *evalv1.TaskTrial, stage podcontract.Stage, status corev1.PodStatus) *corev1.Pod {
	t.Helper()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: trial.Namespace, Name: podbuild.JobName(trial.Name, stage, 0) + "-x1",
			Labels: podbuild.Labels(trial, stage)},
		Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: podbuild.CollectorContainer, Image: "hook:1"}},
			Containers:     []corev1.Container{{Name: podbuild.MainContainer(stage), Image: "task:1"}},
		},
	}
	clitest.Must(t, cl.Create(context.Background(), pod))
	pod.Status = status
	clitest.Must(t, cl.Status().Update(context.Background(), pod))
	return pod
}

func running(stage podcontract.Stage) corev1.PodStatus {
	return corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
		{Name: podbuild.MainContainer(stage), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}
}

// reported is a finished stage whose collector reported sum.
func reported(t *testing.T, stage podcontract.Stage, sum podcontract.Summary) corev1.PodStatus {
	t.Helper()
	st := running(stage)
	st.Phase = corev1.PodSucceeded
	st.ContainerStatuses[0].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{}}
	st.InitContainerStatuses = []corev1.ContainerStatus{collectorDone(t, sum)}
	return st
}

func sweepLogs(ctx context.Context, srv *clitest.Server, ns string, o logs.Options, trial string) (string, string, error) {
	o.Cluster = srv.Cluster(ns)
	return clitest.Execute(ctx, &o, trial)
}

// A running stage is read from its main container's log, followed with -f.
func TestLogsFromRunningPod(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	run := clitest.MakeRun(ns, "run1").Tasks("demo").Create(t, srv.Client)
	trial := clitest.MakeTrial(run, "demo", 1).Phase(evalv1.TrialAgentRunning).Create(t, srv.Client)
	pod := stagePod(t, srv.Client, trial, podcontract.StageAgent, running(podcontract.StageAgent))
	fake := &fakePodLogs{logs: map[string]string{pod.Name + "/agent": "[sweep-hook] agent nop starting\nthinking...\n"}}
	out, stderr, err := sweepLogs(t.Context(), srv, ns, logs.Options{Follow: true, PodLogs: fake}, trial.Name)
	if err != nil {
		t.Fatal(err)
	}
	if out != fake.logs[pod.Name+"/agent"] {
		t.Errorf("stdout %q, want the agent container's log", out)
	}
	if want := "tasktrial " + trial.Name + ": agent log from pod " + pod.Name + " container agent\n"; stderr != want {
		t.Errorf("stderr %q, want %q", stderr, want)
	}
	if diff := cmp.Diff([]string{pod.Name + "/agent"}, fake.followed); diff != "" {
		t.Errorf("followed (-want +got):\n%s", diff)
	}

	// The verifier has not started: no pod, no record.
	_, _, err = sweepLogs(t.Context(), srv, ns, logs.Options{Stage: "verifier", PodLogs: fake}, trial.Name)
	sweeptest.ErrorContains(t, err, "tasktrial "+trial.Name+": no verifier log yet", "the verifier stage has not started")
}

// A finished stage whose Pod is still there is read from the collector's report: inline in
// its termination message, or on its framed log stream.
func TestLogsFromCollector(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	run := clitest.MakeRun(ns, "run1").Tasks("demo").Create(t, srv.Client)
	trial := clitest.MakeTrial(run, "demo", 1).Phase(evalv1.TrialVerifying).Create(t, srv.Client)

	agentLog := []byte("the agent's log, as the collector reported it\n")
	inline := podcontract.NewOutput(podcontract.RecordAgentLog, agentLog, 5000)
	inline.Inline = agentLog
	agentPod := stagePod(t, srv.Client, trial, podcontract.StageAgent,
		reported(t, podcontract.StageAgent, podcontract.Summary{Stage: podcontract.StageAgent, StreamID: "a1", Done: true, Outputs: []podcontract.Output{inline}}))

	testStdout := bytes.Repeat([]byte("PASSED tests/test_arrow.py::test_parse\n"), 200)
	var stream bytes.Buffer
	clitest.Must(t, podcontract.EncodeStream(&stream, "v1", []podcontract.Record{{Name: podcontract.RecordTestStdout, Data: testStdout}}))
	verifierPod := stagePod(t, srv.Client, trial, podcontract.StageVerifier,
		reported(t, podcontract.StageVerifier, podcontract.Summary{Stage: podcontract.StageVerifier, StreamID: "v1", Done: true, Streamed: true,
			Outputs: []podcontract.Output{podcontract.NewOutput(podcontract.RecordTestStdout, testStdout, int64(len(testStdout)))}}))
	fake := &fakePodLogs{logs: map[string]string{
		verifierPod.Name + "/collector": "stderr noise the decoder skips\n" + stream.String(),
		verifierPod.Name + "/verifier":  "the verifier container's own log\n",
	}}
	for _, tc := range []struct {
		stage, want, from string
	}{
		{"agent", string(agentLog), "agent log from pod " + agentPod.Name + " (as the collector reported it, cut to 46 of 5000 bytes; the agent container's own log holds it whole while pod " +
			agentPod.Name + " is there: kubectl logs -n " + ns + " " + agentPod.Name + " -c agent)"},
		{"verifier", string(testStdout), "verifier log from pod " + verifierPod.Name + " (as the collector reported it)"},
	} {
		t.Run(tc.stage, func(t *testing.T) {
			out, stderr, err := sweepLogs(t.Context(), srv, ns, logs.Options{Stage: tc.stage, Follow: true, PodLogs: fake}, trial.Name)
			if err != nil {
				t.Fatal(err)
			}
			if out != tc.want {
				t.Errorf("stdout %q, want %q", out, tc.want)
			}
			if !strings.Contains(stderr, tc.from) {
				t.Errorf("stderr %q lacks %q", stderr, tc.from)
			}
		})
	}

	// A log the collector did not send is read from the main container instead.
	second := clitest.MakeTrial(run, "demo", 2).Phase(evalv1.TrialVerifying).Create(t, srv.Client)
	missing := stagePod(t, srv.Client, second, podcontract.StageAgent, reported(t, podcontract.StageAgent, podcontract.Summary{
		Stage: podcontract.StageAgent, StreamID: "a2", Done: true, Outputs: []podcontract.Output{{Name: podcontract.RecordAgentLog, Missing: true}}}))
	fake.logs[missing.Name+"/agent"] = "the agent container's own log\n"
	out, stderr, err := sweepLogs(t.Context(), srv, ns, logs.Options{PodLogs: fake}, second.Name)
	if err != nil {
		t.Fatal(err)
	}
	if out != "the agent container's own log\n" || !strings.Contains(stderr, "the collector of pod "+missing.Name+" sent no agent.log; reading the agent container's own log instead") {
		t.Errorf("missing agent.log: stdout %q stderr %q, want the main container's log and why", out, stderr)
	}

	// A damaged stream falls back to the main container's own log, and says why.
	fake.logs[verifierPod.Name+"/collector"] = strings.Replace(stream.String(), " D ", " D x", 1)
	out, stderr, err = sweepLogs(t.Context(), srv, ns, logs.Options{Stage: "verifier", PodLogs: fake}, trial.Name)
	if err != nil {
		t.Fatal(err)
	}
	if out != "the verifier container's own log\n" || !strings.Contains(stderr, "reading the collector's report of pod "+verifierPod.Name) ||
		!strings.Contains(stderr, "reading the verifier container's own log instead") {
		t.Errorf("damaged stream: stdout %q stderr %q, want the main container's log and why", out, stderr)
	}
}

// recordTrial writes a trial's record into a file:// store and points its status to it, as
// the trial controller does.
func recordTrial(t *testing.T, cl client.Client, store string, trial *evalv1.TaskTrial, files map[string][]byte) *evalv1.TaskTrial {
	t.Helper()
	st, err := recordstore.Open(t.Context(), store)
	clitest.Must(t, err)
	defer func() { clitest.Must(t, st.Close()) }()
	folder := recordstore.JobFolder(trial.Namespace, trial.Spec.SweepRun, "0123abcd-ffff") + "demo__abc1234/"
	w, err := st.PutFiles(t.Context(), folder, files)
	clitest.Must(t, err)
	trial.Status.Record = &evalv1.TrialRecordStatus{Store: store, Folder: folder, Files: int32(w.Written), Bytes: w.Bytes}
	clitest.Must(t, cl.Status().Update(t.Context(), trial))
	return trial
}

// After the Pods are gone, the logs come from the trial's record.
func TestLogsFromStore(t *testing.T) {
	srv := clitest.APIServer(t)
	ns := srv.Namespace(t)
	run := clitest.MakeRun(ns, "run1").Tasks("demo").Create(t, srv.Client)
	now := metav1.Now()
	w := clitest.MakeTrial(run, "demo", 1).Phase(evalv1.TrialSucceeded)
	w.Status.Agent = &evalv1.StageStatus{StartTime: &now}
	w.Status.Verifier = &evalv1.StageStatus{StartTime: &now}
	trial := w.Create(t, srv.Client)
	dir := t.TempDir()
	store := "file://" + dir
	trial = recordTrial(t, srv.Client, store, trial, map[string][]byte{
		"agent/agent.log":          []byte("agent output\n"),
		"verifier/test-stdout.txt": []byte("3 passed\n"),
		"result.json":              []byte(`{}`),
	})
	fake := &fakePodLogs{}
	for _, tc := range []struct {
		stage, want string
	}{
		{"agent", "agent output\n"},
		{"verifier", "3 passed\n"},
	} {
		t.Run(tc.stage, func(t *testing.T) {
			out, stderr, err := sweepLogs(t.Context(), srv, ns, logs.Options{Stage: tc.stage, Follow: true, PodLogs: fake}, trial.Name)
			if err != nil {
				t.Fatal(err)
			}
			if out != tc.want {
				t.Errorf("stdout %q, want %q", out, tc.want)
			}
			if want := "from the record " + store + "/" + trial.Status.Record.Folder + logs.RecordKey(podcontract.Stage(tc.stage)); !strings.Contains(stderr, want) {
				t.Errorf("stderr %q lacks %q", stderr, want)
			}
		})
	}

	// The manager's URL is not reachable from here: --store reaches the same store.
	moved := filepath.Join(t.TempDir(), "mounted")
	clitest.Must(t, os.Rename(dir, moved))
	_, _, err := sweepLogs(t.Context(), srv, ns, logs.Options{PodLogs: fake}, trial.Name)
	sweeptest.ErrorContains(t, err, "tasktrial "+trial.Name+": its record is in "+store, "no such file or directory", "pass --store")
	out, _, err := sweepLogs(t.Context(), srv, ns, logs.Options{PodLogs: fake, Store: "file://" + moved}, trial.Name)
	if err != nil || out != "agent output\n" {
		t.Errorf("--store: %q, %v; want the agent's log", out, err)
	}

	// A record without the stage's log says so.
	clitest.Must(t, os.Remove(filepath.Join(moved, filepath.FromSlash(trial.Status.Record.Folder), "verifier", "test-stdout.txt")))
	_, _, err = sweepLogs(t.Context(), srv, ns, logs.Options{Stage: "verifier", PodLogs: fake, Store: "file://" + moved}, trial.Name)
	sweeptest.ErrorContains(t, err, "its record file://"+moved+"/"+trial.Status.Record.Folder+" has no verifier/test-stdout.txt", "the collector did not send it")

	// An unreachable s3 store says what to check.
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	_, _, err = sweepLogs(t.Context(), srv, ns, logs.Options{PodLogs: fake, Store: "s3://records?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true"}, trial.Name)
	sweeptest.ErrorContains(t, err, "tasktrial "+trial.Name, "check that s3://records", "is reachable from here", "AWS_ACCESS_KEY_ID")
}

// finishedTrial is a Succeeded trial of campaign run1 in a namespace of its own, its agent
// started.
func finishedTrial(t *testing.T, srv *clitest.Server) (string, *evalv1.SweepRun, *evalv1.TaskTrial) {
	t.Helper()
	ns := srv.Namespace(t)
	run := clitest.MakeRun(ns, "run1").Tasks("demo").Create(t, srv.Client)
	now := metav1.Now()
	w := clitest.MakeTrial(run, "demo", 1).Phase(evalv1.TrialSucceeded)
	w.Status.Agent = &evalv1.StageStatus{StartTime: &now}
	return ns, run, w.Create(t, srv.Client)
}

// A recorded trial whose Pod is still there (torn down after the trial ended) is read from its
// record; from the Pod only when the store is not reachable from here.
func TestLogsPrefersTheRecord(t *testing.T) {
	srv := clitest.APIServer(t)
	ns, _, trial := finishedTrial(t, srv)
	podLog := []byte("the agent's log, from the pod\n")
	inline := podcontract.NewOutput(podcontract.RecordAgentLog, podLog, int64(len(podLog)))
	inline.Inline = podLog
	agentPod := stagePod(t, srv.Client, trial, podcontract.StageAgent,
		reported(t, podcontract.StageAgent, podcontract.Summary{Stage: podcontract.StageAgent, StreamID: "a1", Done: true, Outputs: []podcontract.Output{inline}}))
	dir := t.TempDir()
	store := "file://" + dir
	trial = recordTrial(t, srv.Client, store, trial, map[string][]byte{"agent/agent.log": []byte("the agent's log, from the record\n")})

	out, stderr, err := sweepLogs(t.Context(), srv, ns, logs.Options{PodLogs: &fakePodLogs{}}, trial.Name)
	if err != nil || out != "the agent's log, from the record\n" || !strings.Contains(stderr, "from the record "+store) {
		t.Errorf("recorded, its pod there: %q, %q, %v; want the record's log", out, stderr, err)
	}

	clitest.Must(t, os.Rename(dir, filepath.Join(t.TempDir(), "moved")))
	out, stderr, err = sweepLogs(t.Context(), srv, ns, logs.Options{PodLogs: &fakePodLogs{}}, trial.Name)
	if err != nil || out != string(podLog) || !strings.Contains(stderr, "from pod "+agentPod.Name) {
		t.Errorf("recorded in a store out of reach, its pod there: %q, %q, %v; want the pod's log", out, stderr, err)
	}
}

// A trial that is not there, or has neither a Pod nor a record, says why.
func TestLogsErrors(t *testing.T) {
	srv := clitest.APIServer(t)
	ns, run, trial := finishedTrial(t, srv)
	pending := clitest.MakeTrial(run, "demo", 2).Phase(evalv1.TrialAgentRunning).Create(t, srv.Client)
	pod := stagePod(t, srv.Client, pending, podcontract.StageAgent, corev1.PodStatus{Phase: corev1.PodPending})
	rw := clitest.MakeTrial(run, "demo", 1).Phase(evalv1.TrialSucceeded)
	rw.Name, rw.Spec.RegradeOf = trial.Name+"-r1", trial.Name
	regrade := rw.Create(t, srv.Client)
	fake := &fakePodLogs{}
	for _, tc := range []struct {
		name, trial string
		want        []string
		stderr      string
	}{
		{"no such trial", "run1-nope-1", []string{`tasktrial "run1-nope-1" not found in namespace "` + ns + `"`, "sweep get tasktrials"}, ""},
		{"no store", trial.Name, []string{"no agent log", "no artifact store keeps this campaign's records"}, ""},
		{"a regrade's agent", regrade.Name, []string{"tasktrial " + regrade.Name + " regrades the artifacts of tasktrial " + trial.Name, "its agent did not run", "sweep logs " + trial.Name}, ""},
		{"not started", pending.Name, []string{"no agent log yet", "its pod has not started the agent"}, "pod " + pod.Name + " has not started the agent (phase Pending)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, err := sweepLogs(t.Context(), srv, ns, logs.Options{PodLogs: fake}, tc.trial)
			sweeptest.ErrorContains(t, err, tc.want...)
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, tc.stderr)
			}
		})
	}
}
