package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

// controlPlane is etcd and kube-apiserver (envtest starts them on free loopback ports, never
// 6443, with their own data directories under the run directory), audited for the identities
// whose requests the run counts.
type controlPlane struct {
	env *envtest.Environment
	dir string
	// AuditLog is the API server's audit log: one JSON event a line.
	AuditLog string
}

// auditedUsers are the identities whose requests the audit log keeps; the other components
// (kube-controller-manager, kube-scheduler, kwok, this program's own watches) are not logged,
// so that auditing costs the API server as little as it can.
func startControlPlane(root, dir string, auditedUsers []string) (*controlPlane, error) {
	cp := &controlPlane{dir: dir, AuditLog: filepath.Join(dir, "audit.log")}
	policy := filepath.Join(dir, "audit-policy.yaml")
	// Watches are counted when they start (ResponseStarted), the rest when they end.
	policyYAML, err := yaml.Marshal(map[string]any{
		"apiVersion": "audit.k8s.io/v1", "kind": "Policy",
		"omitStages": []string{"RequestReceived"},
		"rules":      []map[string]any{{"level": "Metadata", "users": auditedUsers}, {"level": "None"}},
	})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(policy, policyYAML, 0o644); err != nil {
		return nil, err
	}
	cp.env = &envtest.Environment{
		CRDDirectoryPaths:     []string{filepath.Join(root, "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		BinaryAssetsDirectory: filepath.Join(root, "bin", "k8s"),
	}
	cp.env.ControlPlane.Etcd = &envtest.Etcd{DataDir: filepath.Join(dir, "etcd")}
	if err := os.MkdirAll(cp.env.ControlPlane.Etcd.DataDir, 0o700); err != nil {
		return nil, err
	}
	// etcd's default quota (2 GiB) holds 10,000 trials and their Jobs, Pods and Secrets.
	cp.env.ControlPlane.Etcd.Configure().Set("quota-backend-bytes", "8589934592")
	api := cp.env.ControlPlane.GetAPIServer()
	api.Configure().
		Set("audit-policy-file", policy).
		Set("audit-log-path", cp.AuditLog).
		Set("audit-log-format", "json").
		Set("audit-log-maxsize", "0")
	if _, err := cp.env.Start(); err != nil {
		return nil, fmt.Errorf("starting etcd and kube-apiserver: %w", err)
	}
	return cp, nil
}

// user is an identity of the API server (a client certificate in group system:masters, so
// that no component of the run is held back by RBAC) with its kubeconfig file.
func (cp *controlPlane) user(name string) (cfg *rest.Config, kubeconfig string, err error) {
	u, err := cp.env.AddUser(envtest.User{Name: name, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, "", err
	}
	b, err := u.KubeConfig()
	if err != nil {
		return nil, "", err
	}
	kubeconfig = filepath.Join(cp.dir, name+".kubeconfig")
	if err := os.WriteFile(kubeconfig, b, 0o600); err != nil {
		return nil, "", err
	}
	return u.Config(), kubeconfig, nil
}

func (cp *controlPlane) stop() error { return cp.env.Stop() }

// process is a component run as a child process, its output in a log file of the run.
type process struct {
	name string
	cmd  *exec.Cmd
	// ended is closed when the process has ended, with err how.
	ended chan struct{}
	err   error
}

func startProcess(dir, name, bin string, env []string, args ...string) (*process, error) {
	logf, err := os.OpenFile(filepath.Join(dir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), env...)
	// Its own process group, so that a Ctrl-C reaches this program, which stops it, and not
	// it first; and killed with this program, should that die.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, ended: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logf.Close()
		close(p.ended)
	}()
	return p, nil
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// stop ends the process with SIGTERM, and SIGKILL if it has not ended after 10 s.
func (p *process) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.ended:
	case <-time.After(10 * time.Second):
		p.kill()
	}
}

// kill ends the process at once, as a crash or an evicted Pod would.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.ended
}

// exited says whether the process ended, and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.ended:
		return true, p.err
	default:
		return false, nil
	}
}
