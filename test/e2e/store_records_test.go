//go:build e2e

package e2e

// Campaigns whose records go to an artifact store: the manager's default file:// store on its
// PersistentVolume and a SweepRun's own s3:// store on the suite's S3 server (the helpers of
// store_helpers_test.go). Each record must outlive its SweepRun and score, read back by
// `sweep info` from the store, as the cluster scored it.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
)

// infoScore runs `bin/sweep info -o json` over a job folder's URL and returns its score.
func infoScore(sweep func(args ...string) (string, error), url string) float64 {
	out, err := sweep("info", url, "-o", "json")
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "sweep info %s: %s", url, out)
	var doc struct {
		Summary struct {
			Score float64 `json:"score"`
		} `json:"summary"`
	}
	ExpectWithOffset(1, json.Unmarshal([]byte(out), &doc)).To(Succeed(), "sweep info -o json: %s", out)
	return doc.Summary.Score
}

// clusterScore is a SweepRun's status.score as a number.
func clusterScore(sr *evalv1.SweepRun) float64 {
	f, err := strconv.ParseFloat(sr.Status.Score, 64)
	ExpectWithOffset(1, err).NotTo(HaveOccurred(), "sweeprun %s: status.score %q", sr.Name, sr.Status.Score)
	return f
}

// recordedTrials waits until every trial of the campaign points to its record, and checks each
// record's status: the store, a folder in the campaign's job folder, the files of Harbor's
// trial layout.
func recordedTrials(ns, name, store string, sr *evalv1.SweepRun) []evalv1.TaskTrial {
	trials := trialsOf(ns, name)
	ExpectWithOffset(1, trials).To(HaveLen(len(sampleTasks)))
	ExpectWithOffset(1, sr.Status.Record).NotTo(BeNil(), "sweeprun %s has no status.record", name)
	ExpectWithOffset(1, sr.Status.Record.Store).To(Equal(store))
	ExpectWithOffset(1, sr.Status.Record.Trials).To(Equal(int32(len(trials))))
	for _, t := range trials {
		ExpectWithOffset(1, t.Status.Record).NotTo(BeNil(), "trial %s has no status.record", t.Name)
		ExpectWithOffset(1, t.Status.Record.Folder).To(HavePrefix(sr.Status.Record.Folder))
		ExpectWithOffset(1, meta.IsStatusConditionTrue(t.Status.Conditions, evalv1.TrialRecorded)).To(BeTrue(), t.Name)
	}
	return trials
}

// deleteRun deletes a finished campaign and waits for its trials to go with it.
func deleteRun(sr *evalv1.SweepRun) {
	ExpectWithOffset(1, k8s.Delete(context.Background(), sr, client.PropagationPolicy("Foreground"))).To(Succeed())
	EventuallyWithOffset(1, func() int { return len(trialsOf(sr.Namespace, sr.Name)) }, 2*time.Minute, time.Second).Should(BeZero())
}

// checkTrialFolder checks a downloaded or mounted trial folder has Harbor's files and nothing
// twice: one config.json, one result.json, the agent's log, the patch and verifier/reward.json.
func checkTrialFolder(dir string) {
	for _, rel := range []string{harborjob.ConfigFile, harborjob.ResultFile, filepath.Join(harborjob.AgentDir, podcontract.RecordAgentLog),
		filepath.Join(harborjob.ArtifactsDir, podcontract.PatchKey), filepath.Join(harborjob.VerifierDir, "reward.json")} {
		ExpectWithOffset(1, filepath.Join(dir, rel)).To(BeARegularFile(), "%s in %s", rel, dir)
	}
	entries, err := os.ReadDir(dir)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	for _, e := range entries {
		ExpectWithOffset(1, e.Name()).NotTo(MatchRegexp(`\.tmp$`), "a stranded partial write in %s", dir)
	}
	// The record shows what produced it: the images by digest, the grader's version.
	b, err := os.ReadFile(filepath.Join(dir, harborjob.ConfigFile))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	var cfg struct {
		Provenance evalv1.Provenance `json:"provenance"`
	}
	ExpectWithOffset(1, json.Unmarshal(b, &cfg)).To(Succeed(), "%s/config.json", dir)
	p := cfg.Provenance
	ExpectWithOffset(1, p.AgentImageID).To(HavePrefix("sha256:"), "%s/config.json: provenance.agentImageID", dir)
	ExpectWithOffset(1, p.VerifierImageID).To(HavePrefix("sha256:"), "%s/config.json: provenance.verifierImageID", dir)
	ExpectWithOffset(1, p.Grader).To(MatchRegexp(`^[a-z-]+/[0-9]+$`), "%s/config.json: provenance.grader", dir)
	ExpectWithOffset(1, p.OperatorVersion).NotTo(BeEmpty(), "%s/config.json: provenance.operatorVersion", dir)
}

var _ = Describe("campaign records in the artifact store", func() {
	It("volume: the default file:// store keeps every record after the SweepRun is deleted, and sweep info scores it the same", func() {
		ns := catalogueNamespace("store-volume")
		patchSecret(ns, "partial.patch")
		Expect(k8s.Create(context.Background(), newRun(ns, "volume", evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}}))).To(Succeed())
		sr := waitFinished(ns, "volume")
		recordedTrials(ns, "volume", "file:///var/lib/sweep-operator/store", sr)
		score, folder := clusterScore(sr), sr.Status.Record.Folder

		deleteRun(sr)
		jobDir := filepath.Join(volumeStoreDir(), filepath.FromSlash(folder))
		DeferCleanup(os.RemoveAll, jobDir)
		entries, err := os.ReadDir(jobDir)
		Expect(err).NotTo(HaveOccurred())
		trialDirs := 0
		for _, e := range entries {
			if e.IsDir() {
				trialDirs++
				checkTrialFolder(filepath.Join(jobDir, e.Name()))
			}
		}
		Expect(trialDirs).To(Equal(len(sampleTasks)), "one folder per trial, none twice")
		// bin/sweep with no store credentials: the volume is read with file://.
		sweep := (&s3Store{}).Sweep
		Expect(infoScore(sweep, "file://"+jobDir)).To(BeNumerically("~", score, 1e-4), "sweep info over the volume's job folder")
	})

	// Serial: it kills the one manager every other spec's trials run on.
	It("S3: a SweepRun's own s3:// store keeps every record, through a manager killed mid-campaign, and sweep info reads it from S3", Serial, func() {
		s3 := openS3Store()
		ns := catalogueNamespace("store-s3")
		patchSecret(ns, "partial.patch")
		prefix := fmt.Sprintf("e2e-records/%d-%d", os.Getpid(), time.Now().UnixNano())
		run := newRun(ns, "s3", evalv1.AgentSpec{Patch: &evalv1.PatchAgent{SecretName: "patches"}})
		run.Spec.Parallelism = 1
		run.Spec.ArtifactStore = &evalv1.ArtifactStore{URL: s3.ManagerURL(prefix)}
		Expect(k8s.Create(context.Background(), run)).To(Succeed())

		By("the manager's Pod is killed once the first trial is recorded, while the others run")
		Eventually(func() int {
			n := 0
			for _, t := range trialsOf(ns, "s3") {
				if t.Status.Record != nil {
					n++
				}
			}
			return n
		}, 8*time.Minute, time.Second).Should(BeNumerically(">=", 1))
		for _, p := range managerPods(kustomizeNamespace, kustomizeManager) {
			Expect(k8s.Delete(context.Background(), &corev1.Pod{ObjectMeta: p.ObjectMeta}, client.GracePeriodSeconds(0))).To(Succeed())
		}

		sr := waitFinished(ns, "s3")
		recordedTrials(ns, "s3", s3.ManagerURL(prefix), sr)
		score, folder := clusterScore(sr), sr.Status.Record.Folder
		deleteRun(sr)

		By("the records read back from S3, each once, after the SweepRun is gone")
		store, err := recordstore.Open(context.Background(), s3.HostURL(prefix))
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(store.Close)
		copyDir := GinkgoT().TempDir()
		_, err = store.Download(context.Background(), folder, copyDir)
		Expect(err).NotTo(HaveOccurred())
		entries, err := os.ReadDir(copyDir)
		Expect(err).NotTo(HaveOccurred())
		trialDirs := 0
		for _, e := range entries {
			if e.IsDir() {
				trialDirs++
				checkTrialFolder(filepath.Join(copyDir, e.Name()))
			}
		}
		Expect(trialDirs).To(Equal(len(sampleTasks)), "one folder per trial, none twice")
		Expect(infoScore(s3.Sweep, s3.HostURL(prefix+"/"+folder))).To(BeNumerically("~", score, 1e-4), "sweep info over S3")
	})
})
