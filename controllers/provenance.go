package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/failure"
	"github.com/swe-sweep/sweep-operator/internal/podbuild"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/provenance"
)

// +kubebuilder:rbac:groups=eval.sweep.dev,resources=sweepruns,verbs=get;list;watch

// ensureProvenance fills the trial's provenance on its first reconcile; the images and the
// grading version are added as the Pods and the grader report them.
func (s *trialScope) ensureProvenance() {
	if s.trial.Status.Provenance == nil {
		s.trial.Status.Provenance = provenance.ForTrial(s.trial, provenance.OperatorVersion())
	}
}

// campaignPins are the images the trial's campaign pinned: none for a trial of no campaign,
// or of one being deleted.
func (s *trialScope) campaignPins(ctx context.Context) ([]evalv1.PinnedImage, error) {
	if s.trial.Spec.SweepRun == "" {
		return nil, nil
	}
	run := &evalv1.SweepRun{}
	err := s.r.Get(ctx, types.NamespacedName{Namespace: s.trial.Namespace, Name: s.trial.Spec.SweepRun}, run)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return run.Status.Images, err
}

// runImage is what the stage's Pod runs: the campaign's pinned reference of its image when
// there is one.
func (s *trialScope) runImage(ctx context.Context, stage podcontract.Stage) (string, error) {
	pins, err := s.campaignPins(ctx)
	return provenance.RunReference(pins, podbuild.StageImage(s.trial, stage)), err
}

// checkImage records the image the stage's Pod reports and checks it against the campaign's
// pin: a Pod that ran another image replaces the verdict with ImageDigestMismatch, and a
// finished stage whose image is not pinned yet holds (its status write wakes the SweepRun).
func (s *trialScope) checkImage(ctx context.Context, stage podcontract.Stage, pod *corev1.Pod, verdict *failure.Verdict) (hold bool, err error) {
	id := provenance.ImageID(pod, podbuild.MainContainer(stage))
	if id == "" {
		return false, nil
	}
	image := podbuild.StageImage(s.trial, stage)
	s.ensureProvenance()
	p := s.trial.Status.Provenance
	if stage == podcontract.StageAgent {
		p.AgentImageID, p.AgentImage = id, provenance.Ran(image, id)
	} else {
		p.VerifierImageID, p.VerifierImage = id, provenance.Ran(image, id)
		// The built-in graders run from the hook the verifier installed.
		if hook := provenance.Ran(s.r.HookImage, provenance.ImageID(pod, podbuild.InstallContainer)); hook != "" {
			p.HookImage = hook
		}
	}
	pins, err := s.campaignPins(ctx)
	if err != nil {
		return false, err
	}
	c := provenance.CheckImage(stage, image, id, pins, s.trial.Spec.SweepRun != "", verdict.Done)
	if c.Mismatch != nil {
		*verdict = *c.Mismatch
	}
	return c.Hold, nil
}

// recordGradingVersion keeps the grading rules the grader's eval.json says it followed.
func (s *trialScope) recordGradingVersion(outputs map[string][]byte) {
	if v := provenance.GradingVersion(outputs[podcontract.RecordEval]); v != "" {
		s.ensureProvenance()
		s.trial.Status.Provenance.GradingVersion = v
	}
}
