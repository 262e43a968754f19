// Package cachetrim shrinks what the manager caches: TaskTrials whole but with their strings
// interned (TaskTrial), and the trial Jobs and Pods trimmed to what it reads of them.
//
// A campaign keeps up to its parallelism of Jobs and Pods in flight, and their pod templates
// and specs (volumes, environment, commands, security contexts, mounts, the stage spec
// annotation) were most of the live heap the manager held for them. The manager reads a Job's
// metadata, status, suspension and deadline (failure.ObserveJob), and a Pod's metadata,
// status, node, and each container's name, image and resource limits (failure.ObservePod); it
// never updates either, so a trimmed copy is never written back. Managed fields are dropped
// as for every other cached object (a transform of its own replaces the cache's default one).
// The informer does not pass deletion tombstones through a transform; they hold the object as
// it was cached, already trimmed.
package cachetrim

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/swe-sweep/sweep-operator/internal/podbuild"
)

// Job keeps what the manager reads of a Job; anything that is not a Job passes unchanged.
func Job(obj any) (any, error) {
	job, ok := obj.(*batchv1.Job)
	if !ok {
		return obj, nil
	}
	job.ManagedFields = nil
	job.Spec = batchv1.JobSpec{
		Suspend:               job.Spec.Suspend,
		ActiveDeadlineSeconds: job.Spec.ActiveDeadlineSeconds,
		BackoffLimit:          job.Spec.BackoffLimit,
		Template:              corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: job.Spec.Template.Labels}},
	}
	return job, nil
}

// Pod keeps what the manager reads of a Pod; anything that is not a Pod passes unchanged.
func Pod(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	pod.ManagedFields = nil
	// The map is the informer's own decoded copy, not shared with a reader yet.
	delete(pod.Annotations, podbuild.StageSpecAnnotation)
	pod.Spec = corev1.PodSpec{
		NodeName:       pod.Spec.NodeName,
		InitContainers: containers(pod.Spec.InitContainers),
		Containers:     containers(pod.Spec.Containers),
	}
	return pod, nil
}

func containers(in []corev1.Container) []corev1.Container {
	if in == nil {
		return nil
	}
	out := make([]corev1.Container, len(in))
	for i, c := range in {
		out[i] = corev1.Container{Name: c.Name, Image: c.Image, Resources: corev1.ResourceRequirements{Limits: c.Resources.Limits}}
	}
	return out
}
