package integration

import (
	"context"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/controllers"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/harborjob"
	"github.com/swe-sweep/sweep-operator/internal/hook"
	"github.com/swe-sweep/sweep-operator/internal/podcontract"
	"github.com/swe-sweep/sweep-operator/internal/recordstore"
	"github.com/swe-sweep/sweep-operator/internal/reward"
	"github.com/swe-sweep/sweep-operator/internal/scoring"
)

const agentLog = "agent patch starting\nedited calc.py\n"

// agentSummaryWithLog is a finished agent stage whose patch and log ride inline.
func agentSummaryWithLog(patch, log string) *podcontract.Summary {
	sum := agentSummary(patch, "")
	out := podcontract.NewOutput(podcontract.RecordAgentLog, []byte(log), int64(len(log)))
	out.Inline = []byte(log)
	sum.Outputs = append(sum.Outputs, out)
	return sum
}

// fileStore opens a file:// store in a fresh directory.
func fileStore() (*recordstore.Store, string) {
	dir := GinkgoT().TempDir()
	store, err := recordstore.Open(context.Background(), "file://"+dir)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { _ = store.Close() })
	return store, dir
}

// withStoreManager is withManager with a manager writing records to stores; restart, when
// set, stops the manager and starts a new one on the same stores.
func withStoreManager(ns *string, k *kubelet, stores func() *controllers.Stores, restart *func()) {
	var stop func()
	BeforeEach(func() {
		*ns = newNamespace()
		*k = kubelet{ns: *ns}
		s := stores()
		start := func() func() { return startManagerWithStores(cfg, nil, metricsserver.Options{BindAddress: "0"}, s) }
		stop = start()
		if restart != nil {
			*restart = func() {
				stop()
				stop = start()
			}
		}
	})
	AfterEach(func() { stop() })
}

// trialFolder is the directory of a trial's record in a file:// store at dir.
func trialFolder(dir string, run *evalv1.SweepRun, trial, task string) string {
	job := recordstore.JobFolder(run.Namespace, run.Name, run.UID)
	return filepath.Join(dir, filepath.FromSlash(job), harborjob.FolderName(harborjob.Trial{Name: trial, Task: task}))
}

// modTimes are the modification times of every file below dir, by path below it.
func modTimes(dir string) map[string]time.Time {
	out := map[string]time.Time{}
	Expect(filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = info.ModTime()
		return err
	})).To(Succeed())
	return out
}

// waitingForStore says whether a trial waits for its store, as its status shows it.
func waitingForStore(t *evalv1.TaskTrial) bool {
	c := meta.FindStatusCondition(t.Status.Conditions, evalv1.TrialRecorded)
	return t.Status.Reason == reasons.StoreUnavailable && c != nil && c.Status == metav1.ConditionFalse && c.Reason == reasons.StoreUnavailable
}

var gradedFiles = map[string][]byte{
	"reward.json":     []byte(`{"reward": 0.6667, "n_subtasks": 3, "n_resolved": 2, "n_partial": 0, "visible_ok": 1, "n_regressions": 0, "agent_patch_applied": 1, "agent_build_ok": 1, "grader_failed": 0}`),
	"eval.json":       []byte(`{"subtasks": []}`),
	"test-stdout.txt": []byte("ran\n"),
	"runs/junit.xml":  []byte("<testsuite/>"),
}

var _ = Describe("The artifact store", func() {
	var (
		ns      string
		k       kubelet
		store   *recordstore.Store
		dir     string
		restart func()
	)
	withStoreManager(&ns, &k, func() *controllers.Stores {
		store, dir = fileStore()
		return &controllers.Stores{Default: store}
	}, &restart)

	It("keeps each trial's record in Harbor's layout, which outlives the SweepRun and scores as the cluster does", func() {
		makeTask(ns, "calc", 3).create()
		run := makeRun(ns, "rec").create()
		name := campaign.TrialName("rec", "calc", 1)
		rewards, err := reward.ParseJSON(gradedFiles["reward.json"])
		Expect(err).NotTo(HaveOccurred())

		k.runStage(name, agentStage, 1, agentSummaryWithLog(samplePatch, agentLog))
		folder := trialFolder(dir, run, name, "calc")
		Eventually(func() ([]byte, error) { return os.ReadFile(filepath.Join(folder, "agent", podcontract.RecordAgentLog)) }, timeout, poll).
			Should(Equal([]byte(agentLog)), "the agent's log is in the store at its harvest, before the verifier runs")
		k.runVerifierWithFiles(name, gradedFiles, hook.Done{Stage: verifierStage, Rewards: rewards})
		Eventually(getRun(ns, "rec"), timeout, poll).Should(Satisfy(completed))

		tr := k.trial(name)
		Expect(tr.Status.Phase).To(Equal(evalv1.TrialSucceeded))
		job := recordstore.JobFolder(ns, "rec", run.UID)
		Expect(tr.Status.Record).NotTo(BeNil())
		Expect(tr.Status.Record.Store).To(Equal("file://" + dir))
		Expect(tr.Status.Record.Folder).To(Equal(job + harborjob.FolderName(harborjob.Trial{Name: name, Task: "calc"}) + "/"))
		Expect(meta.IsStatusConditionTrue(tr.Status.Conditions, evalv1.TrialRecorded)).To(BeTrue())
		times := modTimes(folder)
		Expect(times).To(HaveLen(int(tr.Status.Record.Files)))
		Expect(times).To(HaveKey(harborjob.ConfigFile))
		Expect(times).To(HaveKey(harborjob.ResultFile))
		for rel, data := range gradedFiles {
			Expect(os.ReadFile(filepath.Join(folder, "verifier", filepath.FromSlash(rel)))).To(Equal(data), "verifier/%s byte for byte", rel)
		}
		Expect(os.ReadFile(filepath.Join(folder, "artifacts", podcontract.PatchKey))).To(Equal([]byte(samplePatch)))
		Expect(os.ReadFile(filepath.Join(folder, "agent", podcontract.RecordAgentLog))).To(Equal([]byte(agentLog)))
		Expect(filepath.Join(dir, filepath.FromSlash(job), harborjob.ConfigFile)).To(BeARegularFile(), "the job folder's config.json")

		sr := getRun(ns, "rec")()
		Expect(sr.Status.Record).To(Equal(&evalv1.JobRecordStatus{Store: "file://" + dir, Folder: job, Trials: 1}))

		// The cluster objects go (envtest runs no garbage collector: the trial is deleted as
		// its owner's deletion would); nothing deletes the record.
		Expect(k8s.Delete(context.Background(), sr)).To(Succeed())
		Expect(k8s.Delete(context.Background(), tr)).To(Succeed())
		Eventually(func() error { return k8s.Get(context.Background(), client.ObjectKeyFromObject(sr), &evalv1.SweepRun{}) }, timeout, poll).ShouldNot(Succeed())
		Expect(modTimes(folder)).To(Equal(times), "the record stays as it was")

		copyDir := GinkgoT().TempDir()
		n, err := store.Download(context.Background(), job, copyDir)
		Expect(err).NotTo(HaveOccurred())
		Expect(n).To(Equal(len(times) + 1))
		trials, warnings, err := harborjob.ReadTrials([]string{copyDir})
		Expect(err).NotTo(HaveOccurred())
		Expect(warnings).To(BeEmpty())
		rep := scoring.Score(trials)
		Expect(rep.GradedTrials).To(Equal(1))
		Expect(scoring.Format(rep.Score)).To(Equal(sr.Status.Score), "the downloaded record scores as the cluster did")
	})

	It("waits while the store refuses the record, then writes what is missing once, across a manager restart", func() {
		makeTask(ns, "calc", 3).create()
		run := makeRun(ns, "outage").create()
		name := campaign.TrialName("outage", "calc", 1)
		rewards, err := reward.ParseJSON(gradedFiles["reward.json"])
		Expect(err).NotTo(HaveOccurred())

		// The namespace's folder is a regular file: the store refuses every write below it.
		blocker := filepath.Join(dir, ns)
		Expect(os.WriteFile(blocker, []byte("in the way"), 0o644)).To(Succeed())
		k.runStage(name, agentStage, 1, agentSummaryWithLog(samplePatch, agentLog))
		Eventually(func() bool { return waitingForStore(k.trial(name)) }, timeout, poll).Should(BeTrue())
		tr := k.trial(name)
		Expect(tr.Status.Phase).To(Equal(evalv1.TrialAgentRunning), "the trial stays in its phase")
		Expect(tr.Status.Agent.CompletionTime).To(BeNil(), "its harvest is not recorded, so its Pod stays to be read again")
		Expect(tr.Status.Message).To(ContainSubstring("waiting for the artifact store"))
		Expect(getRun(ns, "outage")().Status.CompletionTime).To(BeNil())

		Expect(os.Remove(blocker)).To(Succeed())
		Eventually(func() *evalv1.StageStatus { return k.trial(name).Status.Verifier }, timeout, poll).ShouldNot(BeNil(), "the harvest goes on once the store takes the agent's files")
		Expect(k.trial(name).Status.Reason).NotTo(Equal(reasons.StoreUnavailable))
		folder := trialFolder(dir, run, name, "calc")
		agentTimes := modTimes(folder)
		Expect(agentTimes).To(HaveLen(2), "agent.log and model.patch")

		// The trial's verifier folder is a regular file: the final write stops after the
		// agent's files and config.json, as a manager killed in the middle of it would.
		Expect(os.WriteFile(filepath.Join(folder, "verifier"), nil, 0o644)).To(Succeed())
		k.runVerifierWithFiles(name, gradedFiles, hook.Done{Stage: verifierStage, Rewards: rewards})
		Eventually(func() bool { return waitingForStore(k.trial(name)) }, timeout, poll).Should(BeTrue())
		Expect(k.trial(name).Status.Phase).To(Equal(evalv1.TrialVerifying))
		Expect(filepath.Join(folder, harborjob.ResultFile)).NotTo(BeAnExistingFile(), "result.json, written last, marks a whole record")
		partial := modTimes(folder)
		delete(partial, "verifier")
		Expect(partial).To(HaveKey(harborjob.ConfigFile))
		Expect(partial).To(HaveLen(3), "agent.log, model.patch, config.json")
		for rel, at := range agentTimes {
			Expect(partial[rel]).To(Equal(at), "%s was written once", rel)
		}

		restart()
		Expect(os.Remove(filepath.Join(folder, "verifier"))).To(Succeed())
		Eventually(k.phaseOf(name), timeout, poll).Should(Equal(evalv1.TrialSucceeded))
		Eventually(getRun(ns, "outage"), timeout, poll).Should(Satisfy(completed))
		done := modTimes(folder)
		for rel, at := range partial {
			Expect(done[rel]).To(Equal(at), "%s was written once", rel)
		}
		Expect(done).To(HaveKey(harborjob.ResultFile))
		Expect(done).To(HaveLen(int(k.trial(name).Status.Record.Files)))
		Expect(getRun(ns, "outage")().Status.Record.Trials).To(Equal(int32(1)))
	})
})

var _ = Describe("A SweepRun's own store", func() {
	var (
		ns string
		k  kubelet
	)
	withStoreManager(&ns, &k, func() *controllers.Stores { return &controllers.Stores{} }, nil)

	It("waits while its s3:// store is unreachable, saying so, and loses nothing", func() {
		makeTask(ns, "calc", 3).create()
		run := makeRun(ns, "s3run").obj()
		run.Spec.ArtifactStore = &evalv1.ArtifactStore{URL: "s3://records/campaigns?region=us-east-1&endpoint=http://127.0.0.1:1&use_path_style=true"}
		Expect(k8s.Create(context.Background(), run)).To(Succeed())
		name := campaign.TrialName("s3run", "calc", 1)

		k.runStage(name, agentStage, 1, agentSummaryWithLog(samplePatch, agentLog))
		Eventually(func() bool { return waitingForStore(k.trial(name)) }, 3*timeout, poll).Should(BeTrue())
		tr := k.trial(name)
		Expect(tr.Status.Message).To(ContainSubstring("waiting for the artifact store: writing the agent's files to the artifact store s3://records/campaigns"))
		Expect(tr.Status.Phase).To(Equal(evalv1.TrialAgentRunning), "the trial stays in its phase")
		Expect(tr.Status.Agent.CompletionTime).To(BeNil(), "its harvest is not recorded, so its Pod stays to be read again")
		Expect(tr.Status.RetryAfter).NotTo(BeNil())
		sr := getRun(ns, "s3run")()
		Expect(sr.Status.CompletionTime).To(BeNil())
		Expect(sr.Status.Record).NotTo(BeNil())
		Expect(sr.Status.Record.Store).To(HavePrefix("s3://records/campaigns?"))
		Expect(sr.Status.Record.Trials).To(BeZero())
	})
})
