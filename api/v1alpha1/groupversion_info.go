// Package v1alpha1 holds the eval.sweep.dev/v1alpha1 API: SweepRun and TaskTrial.
// +kubebuilder:object:generate=true
// +groupName=eval.sweep.dev
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	GroupVersion  = schema.GroupVersion{Group: "eval.sweep.dev", Version: "v1alpha1"}
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	AddToScheme   = SchemeBuilder.AddToScheme
)

// NewScheme holds the built-in kinds and ours: the manager's and the CLI's clients share it.
func NewScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(AddToScheme(s))
	return s
}

// LeaderLeaseName is the manager's leader-election lease: `sweep infra doctor` reads it to tell
// whether an operator is running.
const LeaderLeaseName = "sweep-operator.eval.sweep.dev"
