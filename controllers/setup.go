package controllers

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

// +kubebuilder:rbac:groups=eval.sweep.dev,resources=sweepruns/finalizers;tasktrials/finalizers,verbs=update
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch

func hasLabel(key string) labels.Selector {
	req, err := labels.NewRequirement(key, selection.Exists, nil)
	utilruntime.Must(err)
	return labels.NewSelector().Add(*req)
}

// CacheOptions keep the manager's memory bounded: managed fields are stripped, and Jobs, Pods
// and Secrets are cached only when they carry the trial label, ConfigMaps only when they are
// tasks.
func CacheOptions() cache.Options {
	trial := cache.ByObject{Label: hasLabel(evalv1.LabelTrial)}
	return cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&batchv1.Job{}:      trial,
			&corev1.Pod{}:       trial,
			&corev1.Secret{}:    trial,
			&corev1.ConfigMap{}: {Label: hasLabel(evalv1.LabelTask)},
		},
	}
}

// Options configure both controllers.
type Options struct {
	HookImage           string
	StartTimeout        time.Duration
	TrialConcurrency    int
	SweepRunConcurrency int
}

// Setup registers both controllers with the manager.
func Setup(mgr ctrl.Manager, opts Options) error {
	cs, err := kubernetes.NewForConfig(mgr.GetConfig())
	if err != nil {
		return err
	}
	if err := (&TaskTrialReconciler{
		Client:                  mgr.GetClient(),
		Logs:                    PodLogReader{Clientset: cs},
		HookImage:               opts.HookImage,
		StartTimeout:            opts.StartTimeout,
		MaxConcurrentReconciles: opts.TrialConcurrency,
	}).SetupWithManager(mgr); err != nil {
		return err
	}
	return (&SweepRunReconciler{Client: mgr.GetClient(), MaxConcurrentReconciles: opts.SweepRunConcurrency}).SetupWithManager(mgr)
}
