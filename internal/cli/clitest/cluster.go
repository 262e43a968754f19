// Package clitest is what the sweep CLI's tests share: one API server per test binary
// (envtest, with the CRDs of config/crd/bases), a namespace per test, the objects the
// controllers would write, and running a verb's Options as cobra would.
//
// A package whose tests use the API server calls Main from its TestMain:
//
//	func TestMain(m *testing.M) { clitest.Main(m) }
package clitest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/cli/campaigns"
	"github.com/swe-sweep/sweep-operator/internal/cli/clioptions"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// Update is the tests' -update flag: rewrite the golden files under testdata/golden.
var Update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

var notNamespaceChars = regexp.MustCompile(`[^a-z0-9]+`)

// The API server is started once, on the first test that needs it, so that tests of pure
// logic run without it.
var api struct {
	once   sync.Once
	env    *envtest.Environment
	server *Server
	err    error
	mu     sync.Mutex
	runs   map[string]int
}

// Server is the test API server: an admin client and a kubeconfig file for it.
type Server struct {
	Client     client.Client
	Kubeconfig string
}

// PollInterval is how often verbs that follow a campaign read it again in tests: the test
// plays the controllers, and waiting the CLI's 2 s for each step would only slow it down.
const PollInterval = 20 * time.Millisecond

// Main runs a package's tests, with followed campaigns read every PollInterval, and then stops
// the API server if one started.
func Main(m *testing.M) {
	campaigns.PollInterval = PollInterval
	code := m.Run()
	if api.env != nil {
		if err := api.env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the API server:", err)
		}
	}
	os.Exit(code)
}

// RepoRoot is the repository's top folder, found from this file's place in it.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// APIServer starts envtest's kube-apiserver and etcd with the CRDs of config/crd/bases, once
// per test binary.
func APIServer(t testing.TB) *Server {
	t.Helper()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		t.Fatal("KUBEBUILDER_ASSETS is not set: run `make test`, or build the binaries with `make envtest` and run KUBEBUILDER_ASSETS=$PWD/bin/k8s go test ./internal/cli/...")
	}
	api.once.Do(func() {
		api.runs = map[string]int{}
		api.env = &envtest.Environment{
			CRDDirectoryPaths:     []string{filepath.Join(RepoRoot(), "config", "crd", "bases")},
			ErrorIfCRDPathMissing: true,
		}
		cfg, err := api.env.Start()
		if err != nil {
			api.err = err
			return
		}
		cl, err := client.New(cfg, client.Options{Scheme: evalv1.NewScheme()})
		if err != nil {
			api.err = err
			return
		}
		kubeconfig, err := writeKubeconfig(api.env, envtest.User{Name: "sweep-admin", Groups: []string{"system:masters"}})
		api.server, api.err = &Server{Client: cl, Kubeconfig: kubeconfig}, err
	})
	if api.err != nil {
		t.Fatalf("starting the API server: %v", api.err)
	}
	return api.server
}

// UserKubeconfig adds a user with no rights to the API server and returns its kubeconfig.
func (s *Server) UserKubeconfig(t testing.TB, name string) string {
	t.Helper()
	file, err := writeKubeconfig(api.env, envtest.User{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return file
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

// Namespace creates a namespace of the test's own, named after it so that golden outputs
// do not depend on which tests ran before.
func (s *Server) Namespace(t testing.TB) string {
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
	if err := s.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	return ns.Name
}

// Cluster is the connection -n ns --kubeconfig kubeconfig gives a verb.
func Cluster(kubeconfig, ns string) *clioptions.Cluster {
	c := clioptions.NewCluster()
	c.Flags.KubeConfig, c.Flags.Namespace = &kubeconfig, &ns
	return c
}

// Cluster is the connection to the test API server in namespace ns.
func (s *Server) Cluster(ns string) *clioptions.Cluster {
	return Cluster(s.Kubeconfig, ns)
}

// Execute runs a verb as cobra does, with args, and returns what it wrote to Out and ErrOut
// apart, as a script would see them.
func Execute(ctx context.Context, v clioptions.Verb, args ...string) (stdout, stderr string, err error) {
	streams, out, errOut := clioptions.NewTestIOStreams()
	err = clioptions.Execute(ctx, v, streams, args)
	return out.String(), errOut.String(), err
}

// Start runs a verb in a goroutine; its output may be read while it runs, and the channel
// gets its error.
func Start(ctx context.Context, v clioptions.Verb, args ...string) (stdout, stderr *SyncBuffer, done <-chan error) {
	stdout, stderr = &SyncBuffer{}, &SyncBuffer{}
	errs := make(chan error, 1)
	go func() {
		errs <- clioptions.Execute(ctx, v, clioptions.IOStreams{In: &bytes.Buffer{}, Out: stdout, ErrOut: stderr}, args)
	}()
	return stdout, stderr, errs
}

// Wait is the error of a verb begun with Start, failing the test if it takes over 20 s.
func Wait(t testing.TB, what string, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not return", what)
		return nil
	}
}

// SyncBuffer is a buffer a verb writes while the test reads it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitFor polls cond until it holds, failing the test after 20 s.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Golden compares got with testdata/golden/NAME, or rewrites it with -update.
func Golden(t testing.TB, name, got string) {
	t.Helper()
	sweeptest.Golden(t, filepath.Join("testdata", "golden", name), got, *Update)
}

// Must fails the test on err.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
