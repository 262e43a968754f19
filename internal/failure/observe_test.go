package failure

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

func TestObserveJob(t *testing.T) {
	cond := func(typ batchv1.JobConditionType, status corev1.ConditionStatus, reason string) batchv1.JobCondition {
		return batchv1.JobCondition{Type: typ, Status: status, Reason: reason, Message: "m", LastTransitionTime: metav1.NewTime(t0.Add(time.Minute))}
	}
	base := Stage{Stage: podcontract.StageAgent, Now: t0.Add(time.Hour), JobCreated: t0, StartTimeout: time.Minute}
	cases := map[string]struct {
		conditions []batchv1.JobCondition
		suspended  bool
		started    time.Time
		deadline   int64
		want       func(*Stage)
	}{
		"running": {},
		"complete": {conditions: []batchv1.JobCondition{cond(batchv1.JobComplete, corev1.ConditionTrue, "")},
			want: func(s *Stage) { s.JobComplete, s.JobFinishedAt = true, t0.Add(time.Minute) }},
		"failed": {conditions: []batchv1.JobCondition{cond(batchv1.JobFailed, corev1.ConditionTrue, "DeadlineExceeded")},
			want: func(s *Stage) {
				s.JobFailed, s.JobFailureReason, s.JobFailureMessage, s.JobFinishedAt = true, "DeadlineExceeded", "m", t0.Add(time.Minute)
			}},
		"false conditions are not outcomes": {conditions: []batchv1.JobCondition{cond(batchv1.JobFailed, corev1.ConditionFalse, "x"), cond(batchv1.JobSuspended, corev1.ConditionTrue, "")}},
		"waits in a queue":                  {suspended: true, want: func(s *Stage) { s.Suspended = true }},
		"admitted from a queue": {started: t0.Add(20 * time.Minute),
			want: func(s *Stage) { s.JobStarted = t0.Add(20 * time.Minute) }},
		"with a deadline": {deadline: 600, want: func(s *Stage) { s.ActiveDeadline = 10 * time.Minute }},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(t0)}, Status: batchv1.JobStatus{Conditions: tc.conditions}}
			job.Spec.Suspend = &tc.suspended
			if !tc.started.IsZero() {
				job.Status.StartTime = &metav1.Time{Time: tc.started}
			}
			if tc.deadline != 0 {
				job.Spec.ActiveDeadlineSeconds = &tc.deadline
			}
			want := base
			if tc.want != nil {
				tc.want(&want)
			}
			if diff := cmp.Diff(want, ObserveJob(podcontract.StageAgent, job, t0.Add(time.Hour), time.Minute)); diff != "" {
				t.Errorf("ObserveJob (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewestPod(t *testing.T) {
	pod := func(name string, created time.Duration) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(created))}}
	}
	cases := map[string]struct {
		pods []corev1.Pod
		want string
	}{
		"none":   {},
		"one":    {pods: []corev1.Pod{pod("a", 0)}, want: "a"},
		"newest": {pods: []corev1.Pod{pod("a", 0), pod("c", 2*time.Minute), pod("b", time.Minute)}, want: "c"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := ""
			if p := NewestPod(tc.pods); p != nil {
				got = p.Name
			}
			if got != tc.want {
				t.Errorf("NewestPod = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPodsOfAdmission(t *testing.T) {
	pod := func(name string, created time.Duration, deleted bool) corev1.Pod {
		p := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(created))}}
		if deleted {
			p.DeletionTimestamp = &metav1.Time{Time: t0.Add(created + time.Minute)}
		}
		return p
	}
	cases := map[string]struct {
		pods    []corev1.Pod
		started time.Duration
		want    []string
	}{
		"no start yet: a deleted Pod goes":       {pods: []corev1.Pod{pod("a", 0, true), pod("b", time.Minute, false)}, started: -1, want: []string{"b"}},
		"the evicted run's deleted Pod goes":     {pods: []corev1.Pod{pod("a", 0, true)}, started: 10 * time.Minute},
		"the new run's Pod stays":                {pods: []corev1.Pod{pod("a", 0, true), pod("b", 11*time.Minute, false)}, started: 10 * time.Minute, want: []string{"b"}},
		"a Pod before the start, not deleted":    {pods: []corev1.Pod{pod("a", 0, false)}, started: 10 * time.Minute, want: []string{"a"}},
		"a deleted Pod of the current run stays": {pods: []corev1.Pod{pod("b", 11*time.Minute, true)}, started: 10 * time.Minute, want: []string{"b"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			started := time.Time{}
			if tc.started >= 0 {
				started = t0.Add(tc.started)
			}
			var got []string
			for _, p := range PodsOfAdmission(tc.pods, started) {
				got = append(got, p.Name)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PodsOfAdmission (-want +got):\n%s", diff)
			}
		})
	}
}

func TestObservePod(t *testing.T) {
	summary := podcontract.Summary{Stage: podcontract.StageAgent, StreamID: "s-1", Done: true}
	encoded, err := podcontract.EncodeSummary(summary)
	if err != nil {
		t.Fatal(err)
	}
	started, restarted := metav1.NewTime(time.Unix(1700000000, 0)), metav1.NewTime(time.Unix(1700000060, 0))
	collector := func(state, last *corev1.ContainerStateTerminated) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: "collector", State: corev1.ContainerState{Terminated: state}, LastTerminationState: corev1.ContainerState{Terminated: last}}
	}
	cases := map[string]struct {
		spec        corev1.PodSpec
		status      corev1.PodStatus
		wantPod     *Pod
		wantSummary *podcontract.Summary
		wantErr     bool
	}{
		"pulling": {status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "agent", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "no such image"}}}}},
			wantPod: &Pod{Waiting: []ContainerWaiting{{Container: "agent", Reason: "ImagePullBackOff", Message: "no such image"}}}},
		"main container started": {status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "agent", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
			wantPod: &Pod{Started: true}},
		"main container running since": {status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "agent", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}}}},
			wantPod: &Pod{Started: true, StartedAt: started.Time}},
		"restarted main container: its first start": {status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "agent", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: restarted}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, StartedAt: started}}}}},
			wantPod: &Pod{Started: true, StartedAt: started.Time}},
		"ended main container: its start": {status: corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "agent", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: started, FinishedAt: restarted}}}}},
			wantPod: &Pod{Started: true, StartedAt: started.Time, Terminal: true, Succeeded: true, EndedAt: restarted.Time}},
		"every container ended with exit code 0, the Pod still Running: succeeded": {
			spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "collector"}}, Containers: []corev1.Container{{Name: "agent"}}},
			status: corev1.PodStatus{Phase: corev1.PodRunning,
				InitContainerStatuses: []corev1.ContainerStatus{collector(&corev1.ContainerStateTerminated{FinishedAt: restarted, Message: string(encoded)}, nil)},
				ContainerStatuses:     []corev1.ContainerStatus{{Name: "agent", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: started, FinishedAt: started}}}}},
			wantPod: &Pod{Started: true, StartedAt: started.Time, Terminal: true, Succeeded: true, EndedAt: restarted.Time}, wantSummary: &summary},
		"the main container ended, the collector still running: not yet": {status: corev1.PodStatus{Phase: corev1.PodRunning,
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "collector", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}},
			ContainerStatuses:     []corev1.ContainerStatus{{Name: "agent", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: started}}}}},
			wantPod: &Pod{Started: true, StartedAt: started.Time}},
		"a container ended with exit code 1, the Pod still Running: not yet": {status: corev1.PodStatus{Phase: corev1.PodRunning,
			InitContainerStatuses: []corev1.ContainerStatus{collector(&corev1.ContainerStateTerminated{FinishedAt: restarted}, nil)},
			ContainerStatuses:     []corev1.ContainerStatus{{Name: "agent", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, StartedAt: started, FinishedAt: started}}}}},
			wantPod: &Pod{Started: true, StartedAt: started.Time, EndedAt: restarted.Time}},
		"a container the spec names has no status yet: not yet": {
			spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "collector"}, {Name: "bundle"}}, Containers: []corev1.Container{{Name: "agent"}}},
			status: corev1.PodStatus{Phase: corev1.PodRunning,
				InitContainerStatuses: []corev1.ContainerStatus{collector(&corev1.ContainerStateTerminated{FinishedAt: restarted}, nil)},
				ContainerStatuses:     []corev1.ContainerStatus{{Name: "agent", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: started, FinishedAt: started}}}}},
			wantPod: &Pod{Started: true, StartedAt: started.Time, EndedAt: restarted.Time}},
		"no regular container's status: not yet": {status: corev1.PodStatus{Phase: corev1.PodPending,
			InitContainerStatuses: []corev1.ContainerStatus{collector(&corev1.ContainerStateTerminated{FinishedAt: restarted}, nil)}},
			wantPod: &Pod{EndedAt: restarted.Time}},
		"Failed with every exit code 0: failed": {status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted",
			ContainerStatuses: []corev1.ContainerStatus{{Name: "agent", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{StartedAt: started, FinishedAt: started}}}}},
			wantPod: &Pod{Reason: "Evicted", Started: true, StartedAt: started.Time, Terminal: true, EndedAt: started.Time}},
		"another container running is not a start": {status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "sidecar", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
			wantPod: &Pod{}},
		"evicted with a disruption condition": {status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "low memory",
			Conditions: []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "TerminationByKubelet"}}},
			wantPod: &Pod{Reason: "Evicted", Message: "low memory", Terminal: true, Disruption: "TerminationByKubelet"}},
		"collector summary": {status: corev1.PodStatus{Phase: corev1.PodSucceeded, InitContainerStatuses: []corev1.ContainerStatus{
			collector(&corev1.ContainerStateTerminated{Message: string(encoded)}, nil)}},
			wantPod: &Pod{Terminal: true, Succeeded: true}, wantSummary: &summary},
		"summary of the collector's last run": {status: corev1.PodStatus{Phase: corev1.PodRunning, InitContainerStatuses: []corev1.ContainerStatus{
			collector(nil, &corev1.ContainerStateTerminated{Message: string(encoded)})}},
			wantPod: &Pod{}, wantSummary: &summary},
		"main container OOM-killed": {status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "agent", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}}}},
			wantPod: &Pod{Started: true, Terminal: true, OOMKilled: true}},
		"another container OOM-killed is not the main one's": {status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{
			{Name: "sidecar", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}}},
			{Name: "agent", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error"}}}}},
			wantPod: &Pod{Started: true, Terminal: true}},
		"main container with a memory limit": {spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "sidecar"},
			{Name: "agent", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}}}}},
			status:  corev1.PodStatus{Phase: corev1.PodPending},
			wantPod: &Pod{MemoryLimited: true}},
		"a cpu limit is no memory limit": {spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "agent", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}},
			status:  corev1.PodStatus{Phase: corev1.PodPending},
			wantPod: &Pod{}},
		"rejected summary": {status: corev1.PodStatus{Phase: corev1.PodFailed, InitContainerStatuses: []corev1.ContainerStatus{
			collector(&corev1.ContainerStateTerminated{Message: "not json"}, nil)}},
			wantPod: &Pod{Terminal: true}, wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := Stage{Stage: podcontract.StageAgent}
			s.ObservePod(&corev1.Pod{Spec: tc.spec, Status: tc.status})
			if diff := cmp.Diff(tc.wantPod, s.Pod); diff != "" {
				t.Errorf("Pod (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantSummary, s.Summary); diff != "" {
				t.Errorf("Summary (-want +got):\n%s", diff)
			}
			if (s.SummaryError != nil) != tc.wantErr {
				t.Errorf("SummaryError = %v, want an error: %v", s.SummaryError, tc.wantErr)
			}
		})
	}
}

func TestRecheckAfter(t *testing.T) {
	cases := map[string]struct {
		stage Stage
		want  time.Duration
	}{
		"job finished, pod status pending": {stage: Stage{JobComplete: true}, want: time.Second},
		"running main container":           {stage: Stage{Pod: &Pod{Started: true}}, want: 0},
		"waits for the start timeout":      {stage: Stage{Now: t0.Add(time.Minute), JobCreated: t0, StartTimeout: 10 * time.Minute}, want: 9 * time.Minute},
		"start timeout due: soon":          {stage: Stage{Now: t0.Add(time.Hour), JobCreated: t0, StartTimeout: 10 * time.Minute}, want: time.Second},
		"waiting for admission: no timer":  {stage: Stage{Now: t0.Add(time.Hour), JobCreated: t0, StartTimeout: 10 * time.Minute, Suspended: true}, want: 0},
		"admitted late: counts from admission": {stage: Stage{Now: t0.Add(time.Hour), JobCreated: t0, JobStarted: t0.Add(55 * time.Minute), StartTimeout: 10 * time.Minute},
			want: 5 * time.Minute},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := tc.stage.RecheckAfter(); got != tc.want {
				t.Errorf("RecheckAfter = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestPodSettlesTheStage(t *testing.T) {
	summary := podcontract.Summary{Stage: podcontract.StageVerifier, StreamID: "s-1", Done: true, Rewards: map[string]float64{"reward": 1}}
	encoded, err := podcontract.EncodeSummary(summary)
	if err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(t0.Add(d)) }
	// A verifier Pod whose collector and main container ended at end.
	pod := func(phase corev1.PodPhase, end time.Duration) *corev1.Pod {
		ended := &corev1.ContainerStateTerminated{StartedAt: at(0), FinishedAt: at(end)}
		return &corev1.Pod{Status: corev1.PodStatus{Phase: phase,
			InitContainerStatuses: []corev1.ContainerStatus{{Name: "collector", State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{StartedAt: at(0), FinishedAt: at(end), Message: string(encoded)}}}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "verifier", State: corev1.ContainerState{Terminated: ended}}}}}
	}
	job := func(deadline int64, started time.Duration, conditions ...batchv1.JobCondition) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: at(0)}, Status: batchv1.JobStatus{Conditions: conditions}}
		if deadline != 0 {
			j.Spec.ActiveDeadlineSeconds = &deadline
		}
		if started != 0 {
			s := at(started)
			j.Status.StartTime = &s
		}
		return j
	}
	deadlineExceeded := batchv1.JobCondition{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "DeadlineExceeded", Message: "Job was active longer than specified deadline",
		LastTransitionTime: at(600 * time.Second)}
	complete := batchv1.JobCondition{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: at(70 * time.Second)}
	type settled struct {
		JobComplete, JobFailed bool
		JobFinishedAt          time.Time
		Reason                 string
		Done                   bool
	}
	cases := map[string]struct {
		job  *batchv1.Job
		pod  *corev1.Pod
		want settled
	}{
		"succeeded, the Job running: ended with the Pod": {job: job(600, 0), pod: pod(corev1.PodSucceeded, 60*time.Second),
			want: settled{JobComplete: true, JobFinishedAt: t0.Add(60 * time.Second), Done: true}},
		"succeeded, no deadline": {job: job(0, 0), pod: pod(corev1.PodSucceeded, 60*time.Second),
			want: settled{JobComplete: true, JobFinishedAt: t0.Add(60 * time.Second), Done: true}},
		"the Job's own completion is kept": {job: job(600, 0, complete), pod: pod(corev1.PodSucceeded, 60*time.Second),
			want: settled{JobComplete: true, JobFinishedAt: t0.Add(70 * time.Second), Done: true}},
		"marked DeadlineExceeded after a Pod that ended in time: the Pod's end": {job: job(600, 0, deadlineExceeded), pod: pod(corev1.PodSucceeded, 60*time.Second),
			want: settled{JobComplete: true, JobFinishedAt: t0.Add(60 * time.Second), Done: true}},
		"ended in the deadline's last second: the Job decides": {job: job(600, 0), pod: pod(corev1.PodSucceeded, 599500*time.Millisecond),
			want: settled{}},
		"ended past the deadline counted from the Job's start": {job: job(600, 100*time.Second, deadlineExceeded), pod: pod(corev1.PodSucceeded, 750*time.Second),
			want: settled{JobFailed: true, JobFinishedAt: t0.Add(600 * time.Second), Reason: reasons.VerifierTimeout, Done: true}},
		"in time counted from the Job's start, late from its creation": {job: job(600, 100*time.Second), pod: pod(corev1.PodSucceeded, 650*time.Second),
			want: settled{JobComplete: true, JobFinishedAt: t0.Add(650 * time.Second), Done: true}},
		"failed: the Job decides": {job: job(600, 0), pod: pod(corev1.PodFailed, 60*time.Second),
			want: settled{}},
		"every container ended with exit code 0, the Pod not yet Succeeded: ended with them": {job: job(600, 0), pod: pod(corev1.PodRunning, 60*time.Second),
			want: settled{JobComplete: true, JobFinishedAt: t0.Add(60 * time.Second), Done: true}},
		"the main container ended with exit code 1, the Pod still Running: the Job decides": {job: job(600, 0), pod: withMainExit(pod(corev1.PodRunning, 60*time.Second), 1),
			want: settled{}},
		"ended with exit code 0 in the deadline's last second, the Pod still Running: the Job decides": {job: job(600, 0), pod: pod(corev1.PodRunning, 599500*time.Millisecond),
			want: settled{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := ObserveJob(podcontract.StageVerifier, tc.job, t0.Add(time.Hour), time.Minute)
			s.ObservePod(tc.pod)
			v := Classify(s)
			got := settled{JobComplete: s.JobComplete, JobFailed: s.JobFailed, JobFinishedAt: s.JobFinishedAt, Reason: v.Reason, Done: v.Done}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("settled (-want +got):\n%s", diff)
			}
		})
	}
}

// withMainExit sets the exit code of the Pod's regular containers.
func withMainExit(pod *corev1.Pod, code int32) *corev1.Pod {
	for i := range pod.Status.ContainerStatuses {
		pod.Status.ContainerStatuses[i].State.Terminated.ExitCode = code
	}
	return pod
}

func TestPodStillRunningSettlesNothing(t *testing.T) {
	pod := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{
		{Name: "verifier", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(t0)}}},
		{Name: "other", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	s := Stage{Stage: podcontract.StageVerifier}
	s.ObservePod(pod)
	if s.JobComplete || !s.Pod.EndedAt.IsZero() {
		t.Errorf("a Pod with a container still running settled the stage: JobComplete %v, EndedAt %v", s.JobComplete, s.Pod.EndedAt)
	}
}
