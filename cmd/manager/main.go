// Command manager runs the sweep-operator controllers.
package main

import (
	"context"
	"flag"
	"os"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/controllers"
	"github.com/swe-sweep/sweep-operator/internal/memlimit"
	"github.com/swe-sweep/sweep-operator/internal/metrics"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
)

func main() {
	var (
		probeAddr       string
		pprofAddr       string
		metricsOpts     metrics.ServeOptions
		leaderElect     bool
		qps             float64
		burst           int
		watchNamespaces string
		artifactStore   string
		opts            controllers.Options
	)
	flag.StringVar(&metricsOpts.BindAddress, "metrics-bind-address", ":8443", "address of the Prometheus metrics endpoint (0 disables it)")
	flag.BoolVar(&metricsOpts.Secure, "metrics-secure", true, "serve metrics over HTTPS to callers the API server authenticates and authorises for GET /metrics; false serves plain HTTP to anyone, for local use")
	flag.StringVar(&metricsOpts.CertDir, "metrics-cert-dir", "", "directory with tls.crt and tls.key for the metrics endpoint; empty serves a self-signed certificate")
	flag.BoolVar(&metricsOpts.HTTP2, "enable-http2", false, "serve metrics over HTTP/2 too (off: HTTP/2 Rapid Reset, CVE-2023-44487)")
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address of the health and readiness probes")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "", "address of Go's profiling endpoints (/debug/pprof/), unauthenticated: bind it to loopback; empty disables them")
	flag.BoolVar(&leaderElect, "leader-elect", true, "elect a leader so that only one manager reconciles")
	flag.Float64Var(&qps, "kube-api-qps", 100, "queries per second to the API server")
	flag.IntVar(&burst, "kube-api-burst", 200, "burst of queries to the API server")
	flag.StringVar(&watchNamespaces, "watch-namespaces", "", "comma-separated namespaces to serve, so that the manager can run on RoleBindings in them; empty serves every namespace")
	flag.StringVar(&artifactStore, "artifact-store", "", "the operator's default artifact store URL (file://, s3://, gs://, azblob://); empty: none")
	flag.StringVar(&opts.HookImage, "hook-image", os.Getenv("SWEEP_HOOK_IMAGE"), "sweep-hook image for the install init container and the collector (env SWEEP_HOOK_IMAGE)")
	flag.DurationVar(&opts.StartTimeout, "environment-start-timeout", 10*time.Minute, "how long a stage's Pod may take to start before it is an infrastructure failure")
	flag.IntVar(&opts.TrialConcurrency, "trial-concurrency", 10, "TaskTrials reconciled at once")
	flag.IntVar(&opts.SweepRunConcurrency, "sweeprun-concurrency", 2, "SweepRuns reconciled at once (their status writes are the hot spot)")
	zapOpts := zap.Options{}
	zapOpts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&zapOpts)))
	setupLog := ctrl.Log.WithName("setup")
	if opts.HookImage == "" {
		setupLog.Error(nil, "no sweep-hook image: pass --hook-image or set SWEEP_HOOK_IMAGE")
		os.Exit(2)
	}

	if soft, err := memlimit.Set(); err != nil {
		setupLog.Error(err, "reading the container's memory limit: running without a Go memory limit (set GOMEMLIMIT to give one)")
	} else if soft > 0 {
		setupLog.Info("Go memory limit set below the container's", "bytes", soft, "share", memlimit.Share)
	}

	namespaces, err := controllers.ParseNamespaces(watchNamespaces)
	if err != nil {
		setupLog.Error(err, "--watch-namespaces")
		os.Exit(2)
	}

	opts.Stores = &controllers.Stores{}
	if artifactStore != "" {
		// Opened once, before anything runs, so that a bad URL stops the manager at once; s3://
		// credentials come from the environment (AWS_ACCESS_KEY_ID, ...) or workload identity.
		store, err := recordstore.Open(context.Background(), artifactStore)
		if err != nil {
			setupLog.Error(err, "--artifact-store: give a store URL such as file:///var/lib/sweep-operator/store or s3://BUCKET/PREFIX?region=R, or leave it empty for none")
			os.Exit(2)
		}
		opts.Stores.Default = store
	}

	cfg := ctrl.GetConfigOrDie()
	cfg.QPS, cfg.Burst = float32(qps), burst
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        evalv1.NewScheme(),
		Cache:                         controllers.CacheOptions(namespaces),
		Client:                        controllers.ClientOptions(),
		Metrics:                       metricsOpts.ServerOptions(),
		HealthProbeBindAddress:        probeAddr,
		PprofBindAddress:              pprofAddr,
		LeaderElection:                leaderElect,
		LeaderElectionID:              evalv1.LeaderLeaseName,
		LeaderElectionReleaseOnCancel: true,
	})
	if err != nil {
		setupLog.Error(err, "create manager")
		os.Exit(1)
	}
	if err := controllers.Setup(mgr, opts); err != nil {
		setupLog.Error(err, "set up controllers")
		os.Exit(1)
	}
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		setupLog.Error(err, "add health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		setupLog.Error(err, "add readiness check")
		os.Exit(1)
	}
	setupLog.Info("starting manager", "hookImage", opts.HookImage, "artifactStore", opts.Stores.URL(&evalv1.SweepRun{}))
	if err := mgr.Start(ctrl.SetupSignalHandler()); err != nil {
		setupLog.Error(err, "manager stopped")
		os.Exit(1)
	}
}
