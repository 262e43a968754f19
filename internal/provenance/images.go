// Package provenance decides what a trial's record says it was made of: the image digests its
// Pods ran (pinned once per SweepRun), the operator's, grader's and parser's versions, the
// hash of its catalogue entry and the agent's configuration. Pure functions only; the
// controllers gather the facts and write them.
package provenance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

// PinRecheck is how soon a finished stage whose image its campaign has not pinned yet looks
// again: the trial's own status write, which carries the digest, wakes the SweepRun that pins it.
const PinRecheck = time.Second

const sha256Prefix = "sha256:"

// ImageID is the image ID the node reports for the named container (or init container) of pod,
// "" when it reports none (a container not started yet).
func ImageID(pod *corev1.Pod, container string) string {
	if pod == nil {
		return ""
	}
	for _, cs := range append(slices.Clip(pod.Status.InitContainerStatuses), pod.Status.ContainerStatuses...) {
		if cs.Name == container {
			return cs.ImageID
		}
	}
	return ""
}

// Digest is the sha256 digest an image ID names: the digest of a registry reference
// (name@sha256:...), or a bare image ID (sha256:..., an image imported into the node). Any
// other form names no digest: "".
func Digest(imageID string) string {
	d := imageID
	if i := strings.LastIndex(imageID, "@"); i >= 0 {
		d = imageID[i+1:]
	}
	if !strings.HasPrefix(d, sha256Prefix) || len(d) == len(sha256Prefix) {
		return ""
	}
	return d
}

// registryReference reports whether imageID is a registry reference by digest, which a Pod can
// run: containerd and CRI-O report one for an image they pulled. An image imported into the
// node (ctr images import) reports its bare config digest, which no reference resolves.
func registryReference(imageID string) bool {
	name, _, ok := strings.Cut(imageID, "@")
	return ok && name != "" && Digest(imageID) != ""
}

// Ran is the image a Pod ran as provenance records it: the spec's image at the digest the node
// reported, or "" when the node reported none.
func Ran(image, imageID string) string {
	d := Digest(imageID)
	if d == "" {
		return ""
	}
	name, _, _ := strings.Cut(image, "@")
	return name + "@" + d
}

// Pin is what a campaign pins for image from the first image ID a node reported for it.
func Pin(image, imageID string) (evalv1.PinnedImage, bool) {
	d := Digest(imageID)
	if d == "" {
		return evalv1.PinnedImage{}, false
	}
	p := evalv1.PinnedImage{Image: image, Digest: d}
	if registryReference(imageID) {
		p.Reference = imageID
	}
	return p, true
}

// Find is the pin of image, nil when the campaign has none yet.
func Find(pins []evalv1.PinnedImage, image string) *evalv1.PinnedImage {
	for i := range pins {
		if pins[i].Image == image {
			return &pins[i]
		}
	}
	return nil
}

// RunReference is what a stage's Pod runs for image: the pinned registry reference when there
// is one, so that a tag moved during the campaign cannot change the image; else image itself.
func RunReference(pins []evalv1.PinnedImage, image string) string {
	if p := Find(pins, image); p != nil && p.Reference != "" {
		return p.Reference
	}
	return image
}

// PinImages pins each image of trials that pins lacks to the first image ID reported for it,
// taking trials in name order so that the choice does not depend on the list's order. A pin,
// once made, stays.
func PinImages(pins []evalv1.PinnedImage, trials []*evalv1.TaskTrial) []evalv1.PinnedImage {
	sorted := slices.Clone(trials)
	slices.SortFunc(sorted, func(a, b *evalv1.TaskTrial) int { return strings.Compare(a.Name, b.Name) })
	for _, t := range sorted {
		p := t.Status.Provenance
		if p == nil {
			continue
		}
		for _, img := range []struct{ image, id string }{
			{t.Spec.Images.Agent, p.AgentImageID}, {t.Spec.Images.Verifier, p.VerifierImageID},
		} {
			if Find(pins, img.image) != nil {
				continue
			}
			if pin, ok := Pin(img.image, img.id); ok {
				pins = append(pins, pin)
			}
		}
	}
	return pins
}

// ImageCheck is what a stage's reported image means for the trial.
type ImageCheck struct {
	// Hold: the stage ended but its campaign has not pinned the image yet; it is harvested
	// only once the pin shows it ran the campaign's image.
	Hold bool
	// Mismatch fails the stage as infrastructure: it ran another image than the pinned one.
	Mismatch *failure.Verdict
}

// CheckImage compares the image ID a stage's Pod reported for image with its campaign's pin.
// A trial of no campaign, or a Pod that reports no digest, is not checked.
func CheckImage(stage podcontract.Stage, image, imageID string, pins []evalv1.PinnedImage, inCampaign, stageDone bool) ImageCheck {
	d := Digest(imageID)
	if !inCampaign || d == "" {
		return ImageCheck{}
	}
	p := Find(pins, image)
	if p == nil {
		return ImageCheck{Hold: stageDone}
	}
	if p.Digest == d {
		return ImageCheck{}
	}
	return ImageCheck{Mismatch: &failure.Verdict{Done: true, Class: failure.ClassInfrastructure, Reason: reasons.ImageDigestMismatch,
		Message: fmt.Sprintf("the %s Pod ran image %s as %s, but the campaign pinned it to %s (status.images): not graded; put the pinned image back on the nodes, or start a new SweepRun for the new one",
			stage, image, d, p.Digest)}}
}
