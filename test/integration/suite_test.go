// Package integration runs the controllers against a real kube-apiserver and etcd (envtest,
// built from the Go module proxy by hack/envtest.sh). A driver in this package plays the
// kubelet and the Job controller, which envtest does not run.
package integration

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/controllers"
	"github.com/swe-sweep/sweep-operator/internal/metrics"
)

var (
	cfg     *rest.Config
	k8s     client.Client
	testEnv *envtest.Environment
	logs    = newFakeLogs()
)

func TestIntegration(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controller integration suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	Expect(os.Getenv("KUBEBUILDER_ASSETS")).NotTo(BeEmpty(),
		"KUBEBUILDER_ASSETS is not set: run `make test`, which builds kube-apiserver and etcd with hack/envtest.sh")
	testEnv = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
	}
	var err error
	cfg, err = testEnv.Start()
	Expect(err).NotTo(HaveOccurred())
	k8s, err = client.New(cfg, client.Options{Scheme: evalv1.NewScheme()})
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	Expect(testEnv.Stop()).To(Succeed())
})

// startManager runs both controllers until the returned stop function is called.
func startManager() (stop func()) { return startManagerAs(cfg, nil) }

// startManagerAs runs both controllers with the given identity, serving namespaces (nil: all).
func startManagerAs(cfg *rest.Config, namespaces []string) (stop func()) {
	return startManagerWith(cfg, namespaces, metricsserver.Options{BindAddress: "0"})
}

// startManagerWith runs both controllers, and the status gauges when metrics are served.
func startManagerWith(cfg *rest.Config, namespaces []string, metricsOpts metricsserver.Options) (stop func()) {
	return startManagerWithStores(cfg, namespaces, metricsOpts, nil)
}

// startManagerWithStores runs both controllers writing records to stores (nil: none).
func startManagerWithStores(cfg *rest.Config, namespaces []string, metricsOpts metricsserver.Options, stores *controllers.Stores) (stop func()) {
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                 evalv1.NewScheme(),
		Cache:                  controllers.CacheOptions(namespaces),
		Client:                 controllers.ClientOptions(),
		Metrics:                metricsOpts,
		HealthProbeBindAddress: "0",
		Controller:             ctrlConfig(),
	})
	Expect(err).NotTo(HaveOccurred())
	if metricsOpts.BindAddress != "0" {
		Expect(mgr.Add(&metrics.StatusCollector{Reader: mgr.GetCache()})).To(Succeed())
	}
	Expect((&controllers.TaskTrialReconciler{
		Client: mgr.GetClient(), Logs: logs, HookImage: "sweep/hook:test",
		StartTimeout: time.Minute, MaxConcurrentReconciles: 4, Events: mgr.GetEventRecorder(controllers.EventSource),
		Stores: stores,
	}).SetupWithManager(mgr)).To(Succeed())
	Expect((&controllers.SweepRunReconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), MaxConcurrentReconciles: 1,
		Events: mgr.GetEventRecorder(controllers.EventSource), Stores: stores}).SetupWithManager(mgr)).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(mgr.Start(ctx)).To(Succeed())
	}()
	return func() {
		cancel()
		<-done
	}
}

// withManager gives each spec of the enclosing container its own namespace, kubelet driver and
// running manager.
func withManager(ns *string, k *kubelet) {
	var stop func()
	BeforeEach(func() {
		*ns = newNamespace()
		*k = kubelet{ns: *ns}
		stop = startManager()
	})
	AfterEach(func() { stop() })
}
