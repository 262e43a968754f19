package provenance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

const (
	digestA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	digestB = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func TestImageID(t *testing.T) {
	pod := &corev1.Pod{Status: corev1.PodStatus{
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "sweep-install", ImageID: digestB}},
		ContainerStatuses:     []corev1.ContainerStatus{{Name: "agent", ImageID: digestA}},
	}}
	for _, tc := range []struct {
		name      string
		pod       *corev1.Pod
		container string
		want      string
	}{
		{"the named container's", pod, "agent", digestA},
		{"an init container's", pod, "sweep-install", digestB},
		{"a container the Pod does not report", pod, "verifier", ""},
		{"no Pod", nil, "agent", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ImageID(tc.pod, tc.container); got != tc.want {
				t.Errorf("ImageID = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDigestRanPin(t *testing.T) {
	for _, tc := range []struct {
		name, image, imageID string
		digest, ran          string
		pin                  *evalv1.PinnedImage
	}{
		{name: "an image imported into the node: its bare config digest, no reference to run",
			image: "localhost/sweep/task:c-1", imageID: digestA, digest: digestA, ran: "localhost/sweep/task:c-1@" + digestA,
			pin: &evalv1.PinnedImage{Image: "localhost/sweep/task:c-1", Digest: digestA}},
		{name: "an image pulled from a registry: its repo digest is the reference to run",
			image: "python:3.12", imageID: "docker.io/library/python@" + digestA, digest: digestA, ran: "python:3.12@" + digestA,
			pin: &evalv1.PinnedImage{Image: "python:3.12", Digest: digestA, Reference: "docker.io/library/python@" + digestA}},
		{name: "a spec image given by digest keeps its name, the node's digest",
			image: "python@" + digestB, imageID: "docker.io/library/python@" + digestA, digest: digestA, ran: "python@" + digestA,
			pin: &evalv1.PinnedImage{Image: "python@" + digestB, Digest: digestA, Reference: "docker.io/library/python@" + digestA}},
		{name: "no image ID reported", image: "python:3.12"},
		{name: "an image ID of no sha256 digest", image: "python:3.12", imageID: "docker://python:3.12"},
		{name: "an empty digest", image: "python:3.12", imageID: "python@sha256:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Digest(tc.imageID); got != tc.digest {
				t.Errorf("Digest(%q) = %q, want %q", tc.imageID, got, tc.digest)
			}
			if got := Ran(tc.image, tc.imageID); got != tc.ran {
				t.Errorf("Ran = %q, want %q", got, tc.ran)
			}
			pin, ok := Pin(tc.image, tc.imageID)
			var got *evalv1.PinnedImage
			if ok {
				got = &pin
			}
			if diff := cmp.Diff(tc.pin, got); diff != "" {
				t.Errorf("Pin (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunReference(t *testing.T) {
	pins := []evalv1.PinnedImage{
		{Image: "python:3.12", Digest: digestA, Reference: "docker.io/library/python@" + digestA},
		{Image: "localhost/sweep/task:c-1", Digest: digestB},
	}
	for _, tc := range []struct{ name, image, want string }{
		{"a registry pin runs by digest", "python:3.12", "docker.io/library/python@" + digestA},
		{"an imported image's pin runs its tag (and is checked)", "localhost/sweep/task:c-1", "localhost/sweep/task:c-1"},
		{"an image not pinned yet runs as given", "golang:1.26", "golang:1.26"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RunReference(pins, tc.image); got != tc.want {
				t.Errorf("RunReference(%q) = %q, want %q", tc.image, got, tc.want)
			}
		})
	}
}

func reported(name, agent, agentID, verifier, verifierID string) *evalv1.TaskTrial {
	t := &evalv1.TaskTrial{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: evalv1.TaskTrialSpec{Images: evalv1.TrialImages{Agent: agent, Verifier: verifier}}}
	if agentID != "" || verifierID != "" {
		t.Status.Provenance = &evalv1.Provenance{AgentImageID: agentID, VerifierImageID: verifierID}
	}
	return t
}

func TestPinImages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pins   []evalv1.PinnedImage
		trials []*evalv1.TaskTrial
		want   []evalv1.PinnedImage
	}{
		{name: "no trial reported yet", trials: []*evalv1.TaskTrial{reported("t-1", "env", "", "ver", "")}},
		{name: "the first report pins each image",
			trials: []*evalv1.TaskTrial{reported("t-1", "env", digestA, "ver", "")},
			want:   []evalv1.PinnedImage{{Image: "env", Digest: digestA}}},
		{name: "two reports of one image: the trial first by name wins, whatever the list's order",
			trials: []*evalv1.TaskTrial{reported("t-2", "env", digestB, "ver", digestB), reported("t-1", "env", digestA, "ver", "")},
			want:   []evalv1.PinnedImage{{Image: "env", Digest: digestA}, {Image: "ver", Digest: digestB}}},
		{name: "a pin stays when a later trial reports another digest",
			pins:   []evalv1.PinnedImage{{Image: "env", Digest: digestA}},
			trials: []*evalv1.TaskTrial{reported("t-0", "env", digestB, "ver", "")},
			want:   []evalv1.PinnedImage{{Image: "env", Digest: digestA}}},
		{name: "one image as both stages' is pinned once",
			trials: []*evalv1.TaskTrial{reported("t-1", "img", digestA, "img", digestA)},
			want:   []evalv1.PinnedImage{{Image: "img", Digest: digestA}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, PinImages(tc.pins, tc.trials)); diff != "" {
				t.Errorf("PinImages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCheckImage(t *testing.T) {
	pins := []evalv1.PinnedImage{{Image: "env", Digest: digestA}}
	mismatch := &failure.Verdict{Done: true, Class: failure.ClassInfrastructure, Reason: reasons.ImageDigestMismatch,
		Message: "the agent Pod ran image env as " + digestB + ", but the campaign pinned it to " + digestA +
			" (status.images): not graded; put the pinned image back on the nodes, or start a new SweepRun for the new one"}
	for _, tc := range []struct {
		name       string
		image, id  string
		pins       []evalv1.PinnedImage
		inCampaign bool
		done       bool
		want       ImageCheck
	}{
		{name: "the pinned digest", image: "env", id: digestA, pins: pins, inCampaign: true, done: true},
		{name: "the pinned digest by its registry reference", image: "env", id: "docker.io/x/env@" + digestA, pins: pins, inCampaign: true, done: true},
		{name: "another digest, running", image: "env", id: digestB, pins: pins, inCampaign: true, want: ImageCheck{Mismatch: mismatch}},
		{name: "another digest, finished", image: "env", id: digestB, pins: pins, inCampaign: true, done: true, want: ImageCheck{Mismatch: mismatch}},
		{name: "not pinned yet, running", image: "other", id: digestB, pins: pins, inCampaign: true},
		{name: "not pinned yet, finished: waits for the pin", image: "other", id: digestB, pins: pins, inCampaign: true, done: true, want: ImageCheck{Hold: true}},
		{name: "a trial of no campaign is not checked", image: "env", id: digestB, done: true},
		{name: "no digest reported", image: "env", id: "", pins: pins, inCampaign: true, done: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckImage(podcontract.StageAgent, tc.image, tc.id, tc.pins, tc.inCampaign, tc.done)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("CheckImage (-want +got):\n%s", diff)
			}
		})
	}
}
