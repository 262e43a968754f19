package hook

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/grading"
	pc "github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/proctree"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/sandbox"
	"github.com/swe-sweep/sweep-operator/internal/sweeptest"
)

// The isolation tests run this test binary as the built-in grader (VerifyOptions.Self): in
// that role it parses the flags the stage passes, runs the "tests" (a shell script of the
// attack's mode) as the test identity, and writes its result as root, as a real built-in
// grader does. The stage, the test identity's reaping and the collector are the real ones.
const (
	fakeGraderEnv = "SWEEP_HOOK_TEST_FAKE_GRADER" // its mode
	attackDirEnv  = "SWEEP_HOOK_TEST_OPEN_DIR"    // a world-writable directory for the attack's report
	doneEnv       = "SWEEP_HOOK_TEST_DONE"        // the done file the attack forges
)

// measuredZero is what the fake grader measures: nothing resolved.
var measuredZero = reward.Result{reward.KeyReward: 0, reward.KeySubtasks: 1, reward.KeyResolved: 0, reward.KeyGraderFailed: 0}

// forged claims every bug resolved.
var forged = reward.Result{reward.KeyReward: 1, reward.KeySubtasks: 1, reward.KeyResolved: 1, reward.KeyGraderFailed: 0}

// attackScript is what code under test tries from the verifier: forge the done file and the
// reward, read the verifier directory, and leave a daemon in a session of its own, with an
// environment of its own (so the process tree cannot tell it is the stage's), that keeps
// rewriting the reward. What succeeded is written to the open directory.
const attackScript = `out="$1"; open="$2"
{
  printf '%s' "$FORGED_DONE" > "$SWEEP_HOOK_TEST_DONE" && echo wrote-done
  printf '%s' "$FORGED_REWARD" > "$out/reward.json" && echo wrote-reward
  ls "$out" >/dev/null && echo listed-verifier-dir
  cat "$out/test-stdout.txt" >/dev/null && echo read-log
  ls "$(dirname "$SWEEP_HOOK_TEST_DONE")" >/dev/null && echo listed-run-dir
  id -u
} > "$open/report" 2>/dev/null
setsid env -i FORGED_REWARD="$FORGED_REWARD" sh -c 'while :; do printf "%s" "$FORGED_REWARD" > "$0/reward.json"; echo alive > "$1/daemon"; sleep 0.05; done' "$out" "$open" </dev/null >/dev/null 2>&1 &
sleep 0.3
`

// fakeGrader is `sweep-hook grade swesweep DIR ...` for the isolation tests.
func fakeGrader(mode string, args []string) int {
	g, err := grading.Lookup(pc.GraderSWESweep)
	if err != nil || len(args) < 3 {
		fmt.Println("fake grader: bad call", args, err)
		return 2
	}
	var r grading.Request
	fs := flag.NewFlagSet("grade", flag.ContinueOnError)
	g.Flags(fs, &r)
	if err := fs.Parse(args[3:]); err != nil {
		return 2
	}
	fmt.Printf("fake grader: test-uid %d deadline %s\n", r.TestUser.UID, r.Deadline.Format(time.RFC3339Nano))
	if mode == "attack" {
		doneDoc, _ := json.Marshal(Done{Stage: pc.StageVerifier, Rewards: forged})
		rewardDoc := mustEncode(forged)
		cmd := exec.Command("sh", "-c", attackScript, "sh", r.OutDir, os.Getenv(attackDirEnv))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.TestUser.Credential()}
		cmd.Env = append(os.Environ(), "FORGED_DONE="+string(doneDoc), "FORGED_REWARD="+string(rewardDoc))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
		if err := cmd.Run(); err != nil {
			fmt.Println("fake grader: tests:", err)
		}
	}
	files := []resultFile{{reward.FileJSON, mustEncode(measuredZero)}}
	switch mode {
	case "refused":
		v, _ := reward.EncodeVerdict(reward.Verdict{Reason: reasons.PatchRefused, Message: "the patch changes .git/config"})
		files = append(files, resultFile{reward.FileVerdict, v})
	case "bad verdict":
		files = append(files, resultFile{reward.FileVerdict, []byte("{")})
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(r.OutDir, f.name), f.data, 0o644); err != nil {
			fmt.Println("fake grader:", err)
			return 1
		}
	}
	return 0
}

type resultFile struct {
	name string
	data []byte
}

func mustEncode(r reward.Result) []byte {
	b, err := reward.Encode(r)
	if err != nil {
		panic(err)
	}
	return b
}

func requireRoot(t *testing.T) {
	t.Helper()
	if err := sandbox.Check(); err != nil {
		t.Fatalf("%v: the isolation tests switch users; run them as root", err)
	}
}

// openPod is a Pod root the test identity and the collector's 65532 can reach (openToOthers),
// with a world-writable directory where the attack reports what it could do.
func openPod(t *testing.T) (Paths, string) {
	paths := podRoot(t, map[string]string{"sweep/input/model.patch": "diff\n", "tests/bundle.json": "{}"})
	openToOthers(t, paths)
	open := filepath.Join(podRootDir(paths), "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	mustChmod(t, open, 0o777)
	return paths, open
}

func podRootDir(paths Paths) string { return filepath.Dir(filepath.Dir(paths.TerminationLog)) }

// openToOthers lets every user reach the Pod root (t.TempDir's parent is private to root) and
// makes the emptyDirs world-writable and setgid, as the kubelet makes them.
func openToOthers(t *testing.T, paths Paths) {
	t.Helper()
	root := podRootDir(paths)
	for _, d := range []string{filepath.Dir(root), root} {
		mustChmod(t, d, 0o755)
	}
	for _, d := range []string{paths.VerifierDir, filepath.Dir(paths.Done)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		mustChmod(t, d, 0o777|os.ModeSetgid)
	}
}

func mustChmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func fakeGraderSpec(paths Paths, mode, open string) pc.StageSpec {
	spec := verifierSpec(paths)
	spec.Verifier = &pc.VerifierSpec{Grader: pc.GraderSWESweep, GraderDir: paths.Tests}
	spec.Env = map[string]string{fakeGraderEnv: mode, attackDirEnv: open, doneEnv: paths.Done}
	return spec
}

func testBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return self
}

// The tests of a built-in grader run as the test identity, which can neither write nor read
// the verifier directory and the run directory: the forged done file and reward.json never
// reach the collector, which (as 65532, through its group) reports the grader's own result.
// The daemon the tests left in a session of its own is killed when the grader ends.
func TestTestIdentityCannotForgeTheResult(t *testing.T) {
	requireRoot(t)
	paths, open := openPod(t)
	spec := fakeGraderSpec(paths, "attack", open)
	start := time.Now()
	d, err := RunVerify(context.Background(), spec, paths, VerifyOptions{Self: testBinary(t), TestUser: testIdentity})
	if err != nil {
		t.Fatal(err)
	}
	end := time.Now()
	log := sweeptest.ReadFile(t, paths.testStdout())

	if diff := cmp.Diff("65543\n", sweeptest.ReadFile(t, filepath.Join(open, "report"))); diff != "" {
		t.Errorf("what the test identity could do (-want +got):\n%s\n%s", diff, log)
	}
	if _, err := os.Stat(filepath.Join(open, "daemon")); err != nil {
		t.Errorf("the daemon never ran (%v): the test proves nothing\n%s", err, log)
	}
	if pids := processesOfUID(t, testIdentity.UID); len(pids) > 0 {
		t.Errorf("processes of the test identity outlived the stage: %v", pids)
	}
	if d.Reason != "" || cmp.Diff(map[string]float64(measuredZero), d.Rewards) != "" {
		t.Errorf("done = %+v, want the grader's measured 0\n%s", d, log)
	}
	// The stage passed its identity and a deadline that leaves the reserve before its own.
	want := fmt.Sprintf("fake grader: test-uid %d deadline ", testIdentity.UID)
	i := strings.Index(log, want)
	if i < 0 {
		t.Fatalf("the grader was not told its test identity:\n%s", log)
	}
	deadline, err := time.Parse(time.RFC3339Nano, strings.Fields(log[i+len(want):])[0])
	if err != nil || deadline.Before(start.Add(25*time.Second)) || deadline.After(end.Add(25*time.Second)) {
		t.Errorf("grader deadline %v (%v), want the 30 s stage timeout less 5 s", deadline, err)
	}
	for _, dir := range []string{paths.VerifierDir, filepath.Dir(paths.Done)} {
		info, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		st := info.Sys().(*syscall.Stat_t)
		if info.Mode().Perm() != stageDirMode || st.Uid != 0 || st.Gid != pc.HookUID || info.Mode()&os.ModeSetgid == 0 {
			t.Errorf("%s: mode %v owner %d:%d, want %v root:%d with setgid kept", dir, info.Mode(), st.Uid, st.Gid, stageDirMode, pc.HookUID)
		}
	}

	s, outputs := collectAsHookUser(t, spec, paths)
	if !s.Done || s.Reason != "" || cmp.Diff(map[string]float64(measuredZero), s.Rewards) != "" {
		t.Errorf("summary = %+v, want the grader's measured 0", s)
	}
	if got, _ := reward.ParseJSON(outputs[pc.RecordReward]); cmp.Diff(measuredZero, got) != "" {
		t.Errorf("reward.json sent = %s", outputs[pc.RecordReward])
	}
}

// processesOfUID lists live processes whose real uid is uid.
func processesOfUID(t *testing.T, uid uint32) []string {
	t.Helper()
	var out []string
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err != nil || strings.Contains(string(status), "State:\tZ") {
			continue
		}
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" && f[1] == strconv.FormatUint(uint64(uid), 10) {
				out = append(out, e.Name())
			}
		}
	}
	return out
}

// collectAsHookUser runs the real collector (`sweep-hook collect`) as the hook containers'
// uid and gid, as in a Pod, and decodes its report.
func collectAsHookUser(t *testing.T, spec pc.StageSpec, paths Paths) (pc.Summary, map[string][]byte) {
	t.Helper()
	// The built binary's directory is private to root: copy it where 65532 can run it.
	dir, err := os.MkdirTemp("", "hook-collector")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	mustChmod(t, dir, 0o755)
	bin := filepath.Join(dir, "sweep-hook")
	copyExecutable(t, selfBinary, bin)
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	sweeptest.WriteFiles(t, filepath.Dir(filepath.Dir(paths.Spec)), map[string]string{"spec/stage.json": string(b)})
	if err := os.WriteFile(paths.TerminationLog, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	mustChmod(t, paths.TerminationLog, 0o666) // the kubelet's, whatever the umask
	cmd := exec.Command(bin, "collect", "-root", podRootDir(paths))
	hookUser := sandbox.Identity{UID: pc.HookUID, GID: pc.HookUID}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: hookUser.Credential()}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("collector as %d: %v\n%s", pc.HookUID, err, stderr.String())
	}
	s, err := pc.DecodeSummary(sweeptest.ReadFile(t, paths.TerminationLog))
	if err != nil {
		t.Fatal(err)
	}
	var outputs map[string][]byte
	if s.Streamed {
		outputs, err = pc.DecodeStream(strings.NewReader(stdout.String()), s, spec.Limits)
	} else {
		outputs, err = s.InlineOutputs()
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range s.Outputs {
		if o.Name == pc.RecordTestStdout && o.Missing {
			t.Errorf("the collector could not read %s: %+v", o.Name, o)
		}
	}
	return s, outputs
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = in.Close() }()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(errors.Join(err, out.Close()))
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// A built-in grader's verdict.json is carried into the done file and the summary: a measured
// result with a cause (here the patch was refused) shows that cause. One the grader could
// not write properly is a grader failure, never a score.
func TestVerdictIsCarriedIntoDone(t *testing.T) {
	requireRoot(t)
	for _, tc := range []struct {
		mode        string
		wantReason  string
		wantMsg     string
		wantRewards reward.Result
	}{
		{mode: "measured", wantRewards: measuredZero},
		{mode: "refused", wantReason: reasons.PatchRefused, wantMsg: "the patch changes .git/config", wantRewards: measuredZero},
		{mode: "bad verdict", wantReason: reasons.GraderFailed, wantMsg: "grader swesweep: verdict.json: unexpected end of JSON input", wantRewards: reward.GraderFailed()},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			paths, open := openPod(t)
			spec := fakeGraderSpec(paths, tc.mode, open)
			d, err := RunVerify(context.Background(), spec, paths, VerifyOptions{Self: testBinary(t), TestUser: testIdentity})
			if err != nil {
				t.Fatal(err)
			}
			if d.Reason != tc.wantReason || d.Message != tc.wantMsg || cmp.Diff(map[string]float64(tc.wantRewards), d.Rewards) != "" {
				t.Errorf("done = %q %q %v, want %q %q %v", d.Reason, d.Message, d.Rewards, tc.wantReason, tc.wantMsg, tc.wantRewards)
			}
			s, _ := collectNow(t, context.Background(), spec, paths)
			if s.Reason != tc.wantReason || s.Message != tc.wantMsg || cmp.Diff(map[string]float64(tc.wantRewards), s.Rewards) != "" {
				t.Errorf("summary = %q %q %v, want %q %q %v", s.Reason, s.Message, s.Rewards, tc.wantReason, tc.wantMsg, tc.wantRewards)
			}
		})
	}
}

// The collector reports the rewards of the reward file it read, never the done file's: a
// done file claiming what reward.json does not hold reports what reward.json holds, or no
// rewards with the reason.
func TestCollectorReportsTheRewardFile(t *testing.T) {
	for _, tc := range []struct {
		name        string
		grader      string
		files       map[string]string // under logs/verifier
		prepare     func(t *testing.T, paths Paths, spec *pc.StageSpec)
		claimed     map[string]float64
		wantRewards map[string]float64
		wantReason  string
		wantMsg     string
	}{
		{name: "forged done, real reward.json", grader: pc.GraderSWESweep,
			files: map[string]string{reward.FileJSON: string(mustEncode(measuredZero))}, claimed: forged,
			wantRewards: measuredZero},
		{name: "forged done, no reward file", grader: pc.GraderSWESweep, claimed: forged,
			wantReason: reasons.GraderFailed, wantMsg: "the stage reported a result, but the collector found none: the verifier wrote neither reward.json nor reward.txt"},
		{name: "test.sh: forged done, no reward file", claimed: forged,
			wantReason: reasons.RewardMissing, wantMsg: "found none: the verifier wrote neither"},
		{name: "test.sh: reward.txt", files: map[string]string{reward.FileText: "0.25\n"}, claimed: forged,
			wantRewards: map[string]float64{reward.KeyReward: 0.25}},
		{name: "invalid reward.json", files: map[string]string{reward.FileJSON: `{"reward": "1"}`}, claimed: forged,
			wantReason: reasons.RewardMissing, wantMsg: `reward.json key "reward": "1" is not a number`},
		{name: "symlinked reward.json", grader: pc.GraderSWESweep, claimed: forged,
			prepare: func(t *testing.T, paths Paths, _ *pc.StageSpec) {
				sweeptest.WriteFiles(t, paths.Input, map[string]string{"forged.json": string(mustEncode(forged))})
				if err := os.MkdirAll(paths.VerifierDir, 0o755); err != nil {
					t.Fatal(err)
				}
				mustSymlink(t, filepath.Join(paths.Input, "forged.json"), paths.rewardJSON())
			},
			wantReason: reasons.GraderFailed, wantMsg: "/logs/verifier/reward.json is a symbolic link: refused: not a regular file"},
		{name: "reward.json too large to send", claimed: forged, files: map[string]string{reward.FileJSON: string(mustEncode(forged))},
			prepare:    func(_ *testing.T, _ Paths, spec *pc.StageSpec) { spec.Limits.MaxRecordBytes = 16 },
			wantReason: reasons.RewardMissing, wantMsg: "found none: reward.json has 61 bytes, too large to send"},
		{name: "no rewards claimed: none reported", files: map[string]string{reward.FileJSON: string(mustEncode(forged))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			for k, v := range tc.files {
				files["logs/verifier/"+k] = v
			}
			paths := podRoot(t, files)
			spec := verifierSpec(paths)
			if tc.grader != "" {
				spec.Verifier = &pc.VerifierSpec{Grader: tc.grader, GraderDir: paths.Tests}
			}
			if tc.prepare != nil {
				tc.prepare(t, paths, &spec)
			}
			mustWriteDone(t, paths.Done, Done{Stage: pc.StageVerifier, Rewards: tc.claimed})
			s, _ := collectNow(t, context.Background(), spec, paths)
			if diff := cmp.Diff(tc.wantRewards, s.Rewards); diff != "" {
				t.Errorf("rewards (-want +got):\n%s", diff)
			}
			if s.Reason != tc.wantReason || !strings.Contains(s.Message, tc.wantMsg) {
				t.Errorf("summary = %q %q, want %q %q", s.Reason, s.Message, tc.wantReason, tc.wantMsg)
			}
		})
	}
}

func TestVerifierDecision(t *testing.T) {
	notRoot := isolateGrader(fmt.Errorf("%w (uid 1000): run the verifier image as root (the default; see docs/security.md)", sandbox.ErrNotRoot), testIdentity, Paths{})
	for _, tc := range []struct {
		name        string
		in          verifierResult
		wantReason  string
		wantMsg     string
		wantRewards reward.Result
		wantWrite   bool
	}{
		{name: "built-in grader in a verifier that is not root", in: verifierResult{grader: pc.GraderSWESweep, builtIn: true, setupErr: notRoot},
			wantReason: reasons.GraderFailed,
			wantMsg:    "the built-in grader runs the build and the tests as uid 65543: the verifier does not run as root, so it cannot run the tests as the unprivileged test user (uid 1000): run the verifier image as root (the default; see docs/security.md)"},
		{name: "test.sh that cannot start", in: verifierResult{setupErr: errors.New("no test script")},
			wantReason: reasons.RewardMissing, wantMsg: "no test script"},
		{name: "timeout", in: verifierResult{builtIn: true, run: outcome{Result: proctree.Result{ExitCode: -1, TimedOut: true}}},
			wantReason: reasons.VerifierTimeout, wantMsg: "verifier timed out"},
		{name: "built-in grader without a reward", in: verifierResult{grader: pc.GraderSWESweep, builtIn: true, rewardErr: reward.ErrNoResult},
			wantReason: reasons.GraderFailed, wantMsg: "grader swesweep: the verifier wrote neither reward.json nor reward.txt (exit code 0)",
			wantRewards: reward.GraderFailed(), wantWrite: true},
		{name: "test.sh without a reward", in: verifierResult{rewardErr: reward.ErrNoResult},
			wantReason: reasons.RewardMissing, wantMsg: "the verifier wrote neither reward.json nor reward.txt"},
		{name: "grader_failed", in: verifierResult{builtIn: true, rewards: reward.GraderFailed()},
			wantReason: reasons.GraderFailed, wantMsg: "the grader reported grader_failed", wantRewards: reward.GraderFailed()},
		{name: "measured, no verdict", in: verifierResult{builtIn: true, rewards: measuredZero}, wantRewards: measuredZero},
		{name: "measured with a verdict", in: verifierResult{builtIn: true, rewards: measuredZero,
			verdict: reward.Verdict{Reason: reasons.TestsHungOnPatch, Message: "suite visible ran past 240s"}},
			wantReason: reasons.TestsHungOnPatch, wantMsg: "suite visible ran past 240s", wantRewards: measuredZero},
		{name: "unreadable verdict", in: verifierResult{grader: pc.GraderSWEBench, builtIn: true, rewards: measuredZero, verdictErr: errors.New("verdict.json is a symbolic link")},
			wantReason: reasons.GraderFailed, wantMsg: "grader swebench: verdict.json is a symbolic link", wantRewards: reward.GraderFailed(), wantWrite: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, msg, rewards, write := tc.in.decide()
			if reason != tc.wantReason || msg != tc.wantMsg || write != tc.wantWrite {
				t.Errorf("decide = %q %q write %v, want %q %q write %v", reason, msg, write, tc.wantReason, tc.wantMsg, tc.wantWrite)
			}
			if diff := cmp.Diff(tc.wantRewards, rewards); diff != "" {
				t.Errorf("rewards (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGraderDeadline(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		want    time.Time
	}{
		{"no timeout", 0, time.Time{}},
		{"short timeout: 5 s", 30 * time.Second, at.Add(-5 * time.Second)},
		{"long timeout: 5%", 1200 * time.Second, at.Add(-60 * time.Second)},
		{"tiny timeout: half of it", 2 * time.Second, at.Add(-time.Second)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deadline := at
			if tc.timeout == 0 {
				deadline = time.Time{}
			}
			if got := graderDeadline(deadline, tc.timeout); !got.Equal(tc.want) {
				t.Errorf("graderDeadline = %v, want %v", got, tc.want)
			}
		})
	}
}
