// Package v1alpha1 holds the eval.sweep.dev/v1alpha1 API: SweepRun and TaskTrial.
// +kubebuilder:object:generate=true
// +groupName=eval.sweep.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "eval.sweep.dev", Version: "v1alpha1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)
