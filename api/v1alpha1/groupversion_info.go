// Package v1alpha1 holds the eval.sweep.dev/v1alpha1 API: SweepRun and TaskTrial.
// +kubebuilder:object:generate=true
// +groupName=eval.sweep.dev
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

var (
	GroupVersion = schema.GroupVersion{Group: "eval.sweep.dev", Version: "v1alpha1"}
	// SchemeBuilder is apimachinery's, not controller-runtime's: an api package should need
	// no more than the standard library and k8s.io/apimachinery to be imported.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	AddToScheme   = SchemeBuilder.AddToScheme
)

// addKnownTypes registers every kind of the group-version, and the meta types (ListOptions and
// the like) that a client sends with requests for it.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &SweepRun{}, &SweepRunList{}, &TaskTrial{}, &TaskTrialList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

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
