package podbuild

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/taskdef"
)

// Resources computes the main container's requests and limits from the task's cpus,
// memory_mb and storage_mb under the run's resource policy. Memory and storage are limits
// too, so that a task cannot take more than it declared.
func Resources(policy *evalv1.ResourcePolicy, env taskdef.Environment) (corev1.ResourceRequirements, error) {
	scale := 1.0
	if policy != nil {
		switch policy.Mode {
		case evalv1.ResourcesOverride:
			if policy.Override == nil {
				return corev1.ResourceRequirements{}, fmt.Errorf("spec.resources.override: required with mode Override")
			}
			return *policy.Override.DeepCopy(), nil
		case evalv1.ResourcesScaled:
			f, err := strconv.ParseFloat(policy.Scale, 64)
			if err != nil || f <= 0 {
				return corev1.ResourceRequirements{}, fmt.Errorf("spec.resources.scale: want a positive decimal such as \"0.25\", got %q", policy.Scale)
			}
			scale = f
		}
	}
	requests := corev1.ResourceList{}
	limits := corev1.ResourceList{}
	if env.CPUs > 0 {
		requests[corev1.ResourceCPU] = *resource.NewMilliQuantity(int64(env.CPUs*scale*1000), resource.DecimalSI)
	}
	if env.MemoryMB > 0 {
		q := *resource.NewQuantity(int64(float64(env.MemoryMB)*scale)<<20, resource.BinarySI)
		requests[corev1.ResourceMemory], limits[corev1.ResourceMemory] = q, q
	}
	if env.StorageMB > 0 {
		q := *resource.NewQuantity(int64(float64(env.StorageMB)*scale)<<20, resource.BinarySI)
		requests[corev1.ResourceEphemeralStorage], limits[corev1.ResourceEphemeralStorage] = q, q
	}
	out := corev1.ResourceRequirements{}
	if len(requests) > 0 {
		out.Requests = requests
	}
	if len(limits) > 0 {
		out.Limits = limits
	}
	return out, nil
}

func resourceMust(s string) resource.Quantity { return resource.MustParse(s) }
