package controllers

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cachetrim"
	"github.com/swe-sweep/sweep-operator/internal/metrics"
)

// +kubebuilder:rbac:groups=eval.sweep.dev,resources=sweepruns/finalizers;tasktrials/finalizers,verbs=update
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

func hasLabel(key string) labels.Selector {
	req, err := labels.NewRequirement(key, selection.Exists, nil)
	utilruntime.Must(err)
	return labels.NewSelector().Add(*req)
}

// CacheOptions keep the manager's memory bounded: managed fields are stripped, TaskTrials'
// strings are interned, Jobs and Pods are cached only when they carry the trial label, and
// then only what the manager reads of them (internal/cachetrim), ConfigMaps only when they are tasks, NetworkPolicies only when
// they are trials' egress policies.
// With namespaces, the manager watches only those (--watch-namespaces), so that it can run on
// RoleBindings in them instead of a ClusterRoleBinding.
//
// Secrets are not cached at all: the manager reads none of its own. It creates its trials'
// (artifacts, results; the trial Pods mount them and owner references delete them), and a
// patch agent's or an external agent's Secret is mounted by the trial Pod, never
// read by the manager. It writes a trial's record from what it harvested, not from those
// Secrets, to stores it reaches with its own credentials. Its RBAC grants create on Secrets
// and nothing else.
func CacheOptions(namespaces []string) cache.Options {
	trial := hasLabel(evalv1.LabelTrial)
	opts := cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			&evalv1.TaskTrial{}:           {Transform: cachetrim.TaskTrial},
			&batchv1.Job{}:                {Label: trial, Transform: cachetrim.Job},
			&corev1.Pod{}:                 {Label: trial, Transform: cachetrim.Pod},
			&corev1.ConfigMap{}:           {Label: hasLabel(evalv1.LabelTask)},
			&networkingv1.NetworkPolicy{}: {Label: hasLabel(evalv1.LabelEgress)},
		},
	}
	if len(namespaces) > 0 {
		opts.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range namespaces {
			opts.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	return opts
}

// ParseNamespaces reads --watch-namespaces: comma-separated namespace names, empty for all.
func ParseNamespaces(flag string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, ns := range strings.Split(flag, ",") {
		ns = strings.TrimSpace(ns)
		if ns == "" || seen[ns] {
			continue
		}
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return nil, fmt.Errorf("--watch-namespaces: %q is not a namespace name (%s): give comma-separated namespaces, such as team-a,team-b", ns, strings.Join(errs, "; "))
		}
		seen[ns] = true
		out = append(out, ns)
	}
	return out, nil
}

// ClientOptions send any read of a Secret to the API server rather than to a cache, so that
// a read added by mistake fails at once on the manager's RBAC (create only) instead of
// starting an informer over every Secret it can see.
func ClientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.Secret{}}}}
}

// Options configure both controllers.
type Options struct {
	HookImage           string
	StartTimeout        time.Duration
	TrialConcurrency    int
	SweepRunConcurrency int
	// Stores are the artifact stores records go to (the operator's default and the
	// SweepRuns' own).
	Stores *Stores
}

// Setup registers both controllers, and the gauges read from their objects, with the manager.
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
		Events:                  mgr.GetEventRecorder(EventSource),
		Stores:                  opts.Stores,
	}).SetupWithManager(mgr); err != nil {
		return err
	}
	if err := (&SweepRunReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), MaxConcurrentReconciles: opts.SweepRunConcurrency,
		Events: mgr.GetEventRecorder(EventSource), Stores: opts.Stores}).SetupWithManager(mgr); err != nil {
		return err
	}
	return mgr.Add(&metrics.StatusCollector{Reader: mgr.GetCache()})
}
