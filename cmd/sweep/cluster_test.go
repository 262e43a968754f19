package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

var notNamespaceChars = regexp.MustCompile(`[^a-z0-9]+`)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// The API server of these tests is started once, on the first test that needs it, so that
// tests of pure logic run without it.
var api struct {
	once       sync.Once
	env        *envtest.Environment
	client     client.Client
	kubeconfig string
	err        error
	mu         sync.Mutex
	runs       map[string]int
}

func TestMain(m *testing.M) {
	code := m.Run()
	if api.env != nil {
		if err := api.env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the API server:", err)
		}
	}
	os.Exit(code)
}

// apiServer starts envtest's kube-apiserver and etcd with the CRDs of config/crd/bases and
// returns an admin client and a kubeconfig file for --kubeconfig.
func apiServer(t *testing.T) (client.Client, string) {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run `make test`, or build the binaries with `make envtest` and run KUBEBUILDER_ASSETS=$PWD/bin/k8s go test ./cmd/sweep/")
	}
	api.once.Do(func() {
		api.runs = map[string]int{}
		api.env = &envtest.Environment{
			CRDDirectoryPaths:     []string{filepath.Join("..", "..", "config", "crd", "bases")},
			ErrorIfCRDPathMissing: true,
		}
		cfg, err := api.env.Start()
		if err != nil {
			api.err = err
			return
		}
		if api.client, err = client.New(cfg, client.Options{Scheme: evalv1.NewScheme()}); err != nil {
			api.err = err
			return
		}
		api.kubeconfig, api.err = writeKubeconfig(api.env, envtest.User{Name: "sweep-admin", Groups: []string{"system:masters"}})
	})
	if api.err != nil {
		t.Fatalf("starting the API server: %v", api.err)
	}
	return api.client, api.kubeconfig
}

// writeKubeconfig adds a user to the API server and writes a kubeconfig for it.
func writeKubeconfig(env *envtest.Environment, user envtest.User) (string, error) {
	au, err := env.AddUser(user, nil)
	if err != nil {
		return "", err
	}
	data, err := au.KubeConfig()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "sweep-kubeconfig-")
	if err != nil {
		return "", err
	}
	file := filepath.Join(dir, user.Name)
	return file, os.WriteFile(file, data, 0o600)
}

// testNamespace creates a namespace of the test's own, named after it so that golden outputs
// do not depend on which tests ran before.
func testNamespace(t *testing.T, cl client.Client) string {
	t.Helper()
	name := strings.Trim(notNamespaceChars.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(name) > 56 {
		name = strings.TrimRight(name[:56], "-")
	}
	// Namespaces never finish deleting without a namespace controller: a test run again in
	// the same process (go test -count) gets a new one.
	api.mu.Lock()
	api.runs[name]++
	if n := api.runs[name]; n > 1 {
		name = fmt.Sprintf("%s-%d", name, n)
	}
	api.mu.Unlock()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := cl.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// runIn runs sweep against the test API server in namespace ns; stdout and stderr are
// returned apart, as a script would see them.
func runIn(t *testing.T, kubeconfig, ns string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runSweepSplit(t, append([]string{"--kubeconfig", kubeconfig, "-n", ns}, args...)...)
}

func runSweepSplit(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return runSweepCtx(context.Background(), args...)
}

// runSweepCtx runs sweep with ctx as Ctrl-C would cancel it; it may run in a goroutine.
func runSweepCtx(ctx context.Context, args ...string) (string, string, error) {
	var out, errOut syncBuffer
	err := runSweepTo(ctx, &out, &errOut, args...)
	return out.String(), errOut.String(), err
}

// runSweepTo runs sweep writing to stdout and stderr, which a test may read while it runs.
func runSweepTo(ctx context.Context, stdout, stderr io.Writer, args ...string) error {
	cmd := newRootCmd()
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetArgs(args)
	return cmd.ExecuteContext(ctx)
}

// syncBuffer is a buffer a command writes while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// golden compares got with testdata/golden/NAME, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	sweeptest.Golden(t, filepath.Join("testdata", "golden", name), got, *update)
}

// errorContains fails the test unless err holds every part.
func errorContains(t *testing.T, err error, parts ...string) {
	t.Helper()
	sweeptest.ErrorContains(t, err, parts...)
}
