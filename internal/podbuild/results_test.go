package podbuild

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/swe-sweep/sweep-operator/internal/podcontract"
)

func TestResultsSecretNameAt(t *testing.T) {
	for i, want := range []string{"t1-results", "t1-results-1", "t1-results-2"} {
		if got := ResultsSecretNameAt("t1", i); got != want {
			t.Errorf("ResultsSecretNameAt(t1, %d) = %q, want %q", i, got, want)
		}
	}
	if ResultsSecretName("t1") != "t1-results" {
		t.Error("the first results Secret changed its name")
	}
}

// layout is where each key went: Secret index → sorted keys with their sizes.
func layout(secrets []map[string][]byte) map[int]map[string]int {
	out := map[int]map[string]int{}
	for i, s := range secrets {
		out[i] = map[string]int{}
		for k, v := range s {
			out[i][k] = len(v)
		}
	}
	return out
}

func TestSplitResults(t *testing.T) {
	const max = 150
	bytesOf := func(n int) []byte { return bytes.Repeat([]byte{'x'}, n) }
	first := []string{"reward.json", "report.json", "eval.json"}
	count := func(n int) int { return len(strconv.Itoa(n)) }
	for _, tc := range []struct {
		name    string
		records map[string][]byte
		want    map[int]map[string]int
	}{
		{name: "none", records: map[string][]byte{}, want: map[int]map[string]int{}},
		{name: "all in one", records: map[string][]byte{"reward.json": bytesOf(10), "eval.json": bytesOf(20), "a": bytesOf(5)},
			want: map[int]map[string]int{0: {"reward.json": 10, "eval.json": 20, "a": 5, podcontract.ResultsCountKey: count(1)}}},
		{name: "the declared first, the rest where there is room",
			records: map[string][]byte{"reward.json": bytesOf(10), "eval.json": bytesOf(40), "b": bytesOf(50), "c": bytesOf(5)},
			want: map[int]map[string]int{
				0: {"reward.json": 10, "eval.json": 40, "c": 5, podcontract.ResultsCountKey: count(2)},
				1: {"b": 50}}},
		{name: "a record larger than a Secret goes in pieces",
			records: map[string][]byte{"reward.json": bytesOf(10), "eval.json": bytesOf(250)},
			want: map[int]map[string]int{
				0: {"reward.json": 10, podcontract.ResultsCountKey: count(3)},
				1: {"_part0.eval.json": 132}, 2: {"_part1.eval.json": 118}}},
		{name: "exactly a Secret: whole, in a Secret of its own",
			records: map[string][]byte{"reward.json": bytesOf(10), "z": bytesOf(max - 1)},
			want:    map[int]map[string]int{0: {"reward.json": 10, podcontract.ResultsCountKey: count(2)}, 1: {"z": max - 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secrets := SplitResults(tc.records, first, max)
			if diff := cmp.Diff(tc.want, layout(secrets)); diff != "" {
				t.Errorf("layout (-want +got):\n%s", diff)
			}
			for i, s := range secrets {
				size := 0
				for k, v := range s {
					size += len(k) + len(v)
				}
				if size > max {
					t.Errorf("secret %d holds %d bytes, above %d", i, size, max)
				}
			}
			if len(secrets) > 0 {
				if n, err := podcontract.ResultsCount(secrets[0]); err != nil || n != len(secrets) {
					t.Errorf("ResultsCount = %d, %v; want %d", n, err, len(secrets))
				}
			}
			got, err := podcontract.JoinResults(secrets)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.records, got); diff != "" {
				t.Errorf("joined (-want +got):\n%s", diff)
			}
		})
	}
}

// SWE-sweep's eval.json of a large task can take several MiB: it survives, in pieces, with
// reward.json in the first Secret.
func TestSplitResultsKeepsALargeEvalJSON(t *testing.T) {
	eval := make([]byte, 3<<20)
	for i := range eval {
		eval[i] = byte(i * 7)
	}
	records := map[string][]byte{"reward.json": []byte(`{"reward": 1}`), "eval.json": eval, "test-stdout.txt": []byte("ran")}
	secrets := SplitResults(records, []string{"reward.json", "eval.json"}, MaxSecretPayload)
	if len(secrets) != 4 {
		t.Errorf("%d Secrets, want 4 for 3 MiB and the rest", len(secrets))
	}
	if string(secrets[0]["reward.json"]) != `{"reward": 1}` {
		t.Error("reward.json is not in the first Secret")
	}
	got, err := podcontract.JoinResults(secrets)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got["eval.json"], eval) || len(got) != 3 {
		t.Errorf("joined %d records; eval.json equal: %v", len(got), bytes.Equal(got["eval.json"], eval))
	}
}

func TestArtifactSecretNameAt(t *testing.T) {
	for i, want := range []string{"t1-artifacts", "t1-artifacts-1", "t1-artifacts-2"} {
		if got := ArtifactSecretNameAt("t1", i); got != want {
			t.Errorf("ArtifactSecretNameAt(t1, %d) = %q, want %q", i, got, want)
		}
	}
	if ArtifactSecretName("t1") != "t1-artifacts" {
		t.Error("the first artifacts Secret changed its name")
	}
}

// A patch of 5 MiB, and one of the largest the verifier receives, are spread over Secrets the
// verifier mounts, with their checksums in the first, and join back whole.
func TestArtifactSecrets(t *testing.T) {
	for _, size := range []int{5 << 20, podcontract.MaxArtifactBytes - 100} {
		patch := make([]byte, size)
		for i := range patch {
			patch[i] = byte(i * 13)
		}
		artifacts := map[string][]byte{podcontract.PatchKey: patch, "notes.txt": []byte("n")}
		sums := map[string]string{podcontract.PatchKey: "abc", "notes.txt": "def"}
		secrets := ArtifactSecrets(artifacts, sums)
		if len(secrets) < 2 || len(secrets) > MaxArtifactSecrets {
			t.Fatalf("%d bytes: %d Secrets, want 2 to %d", size, len(secrets), MaxArtifactSecrets)
		}
		for i, s := range secrets {
			n := 0
			for k, v := range s {
				n += len(k) + len(v)
			}
			if n > MaxSecretPayload {
				t.Errorf("%d bytes: Secret %d carries %d bytes", size, i, n)
			}
		}
		if got := string(secrets[0][podcontract.ArtifactChecksumKey(podcontract.PatchKey)]); got != "abc" {
			t.Errorf("%d bytes: the first Secret holds the patch's checksum %q, want abc", size, got)
		}
		joined, err := podcontract.JoinResults(secrets)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(joined[podcontract.PatchKey], patch) || string(joined["notes.txt"]) != "n" {
			t.Errorf("%d bytes: the artifacts do not join back whole", size)
		}
	}
	if diff := cmp.Diff([]map[string][]byte{{}}, ArtifactSecrets(nil, nil)); diff != "" {
		t.Errorf("no artifacts: the first Secret is still written (-want +got):\n%s", diff)
	}
}

// The verifier mounts every artifacts Secret there may be into one directory; only the first,
// which harvest always writes, is required.
func TestArtifactsVolume(t *testing.T) {
	v := artifactsVolume("t1")
	if v.Projected == nil || len(v.Projected.Sources) != MaxArtifactSecrets {
		t.Fatalf("volume %+v: want a projected volume of %d Secrets", v, MaxArtifactSecrets)
	}
	for i, src := range v.Projected.Sources {
		optional := src.Secret.Optional != nil && *src.Secret.Optional
		if src.Secret.Name != ArtifactSecretNameAt("t1", i) || optional != (i > 0) || len(src.Secret.Items) != 0 {
			t.Errorf("source %d: %+v", i, src.Secret)
		}
	}
}

// A regrade's verifier Job mounts the artifacts Secrets of the trial whose agent made them,
// never Secrets of its own (it has none).
func TestArtifactsOwner(t *testing.T) {
	task := sampleTask(t)
	cases := map[string]struct {
		name, regradeOf, want string
	}{
		"a trial mounts its own":          {name: "c-a-1", want: "c-a-1"},
		"a regrade mounts the original's": {name: "c-a-1-r1", regradeOf: "c-a-1", want: "c-a-1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			trial := makeTrial(tc.name, "calc").grader(podcontract.GraderSWESweep).obj()
			trial.Spec.RegradeOf = tc.regradeOf
			if got := ArtifactsOwner(trial); got != tc.want {
				t.Errorf("ArtifactsOwner = %q, want %q", got, tc.want)
			}
			job := Job(JobInput{Trial: trial, Task: task, Stage: podcontract.StageVerifier, Run: 1, HookImage: "sweep/hook:v1"})
			var mounted []string
			for _, v := range job.Spec.Template.Spec.Volumes {
				if v.Name == volInput {
					for _, src := range v.Projected.Sources {
						mounted = append(mounted, src.Secret.Name)
					}
				}
			}
			if len(mounted) != MaxArtifactSecrets || mounted[0] != ArtifactSecretNameAt(tc.want, 0) || mounted[1] != ArtifactSecretNameAt(tc.want, 1) {
				t.Errorf("verifier mounts %v, want the artifacts Secrets of %s", mounted, tc.want)
			}
		})
	}
}
