package integration

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
	"github.com/swe-sweep/sweep-operator/api/v1alpha1/reasons"
	"github.com/swe-sweep/sweep-operator/internal/campaign"
	"github.com/swe-sweep/sweep-operator/internal/metrics"
)

// freeAddress is a loopback address with a port nothing listens on.
func freeAddress() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = l.Close() }() // a probe for a free port: nothing was served on it
	return l.Addr().String()
}

// serviceAccountToken is a token of a new ServiceAccount in ns, from the API server's
// TokenRequest, as a scraper's Pod would mount it.
func serviceAccountToken(ns, name string) string {
	ctx := context.Background()
	Expect(k8s.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}})).To(Succeed())
	cs, err := kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	Expect(err).NotTo(HaveOccurred())
	return tr.Status.Token
}

// bindClusterRole binds a ClusterRole cluster-wide to a subject.
func bindClusterRole(role string, subject rbacv1.Subject) {
	Expect(k8s.Create(context.Background(), &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{subject},
	})).To(Succeed())
}

// bindMetricsReader binds config/'s metrics-reader ClusterRole, under a name of its own, to
// the ServiceAccount.
func bindMetricsReader(ns, serviceAccount string) {
	role := configClusterRole("metrics_reader_role.yaml", "sweep-operator-metrics-reader-"+ns)
	bindClusterRole(role.Name, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: serviceAccount, Namespace: ns})
}

// scraper GETs /metrics over HTTPS; the manager's certificate is self-signed.
type scraper struct{ url string }

var insecureClient = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
	TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // the test manager's self-signed certificate
}}

func (s scraper) get(token string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, s.url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := insecureClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer func() { _ = resp.Body.Close() }() // read to the end below
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// status is the HTTP status of a GET with token, once the server answers.
func (s scraper) status(token string) int {
	var code int
	EventuallyWithOffset(1, func() error {
		var err error
		code, _, err = s.get(token)
		return err
	}, timeout, poll).Should(Succeed())
	return code
}

// scrape is the parsed exposition served to token.
func (s scraper) scrape(token string) samples {
	code, body, err := s.get(token)
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	ExpectWithOffset(1, code).To(Equal(http.StatusOK), body)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(strings.NewReader(body))
	ExpectWithOffset(1, err).NotTo(HaveOccurred())
	return families
}

// samples are metric families by name.
type samples map[string]*dto.MetricFamily

// value is the gauge or counter value, or the histogram's count, of the series with exactly
// these labels; ok is false when there is none.
func (s samples) value(name string, labels map[string]string) (v float64, ok bool) {
	f := s[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.Metric {
		if len(m.Label) != len(labels) {
			continue
		}
		match := true
		for _, l := range m.Label {
			if labels[l.GetName()] != l.GetValue() {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// count is value's, 0 for a series not yet observed.
func (s samples) count(name string, labels map[string]string) float64 {
	v, _ := s.value(name, labels)
	return v
}

var _ = Describe("the manager's metrics", func() {
	It("serves a campaign's series over HTTPS to a token allowed GET /metrics, and refuses others", func() {
		ns := newNamespace()
		k := kubelet{ns: ns}
		addr := freeAddress()
		// Watching ns alone: trials other specs left in other namespaces would otherwise be
		// observed by this manager too, and the counts below compared against them.
		stop := startManagerWith(cfg, []string{ns}, metrics.ServeOptions{BindAddress: addr, Secure: true}.ServerOptions())
		defer stop()
		s := scraper{url: fmt.Sprintf("https://%s/metrics", addr)}
		allowed, stranger := serviceAccountToken(ns, "prometheus"), serviceAccountToken(ns, "stranger")
		bindMetricsReader(ns, "prometheus")

		By("no token is unauthenticated; a token without the metrics-reader role is forbidden")
		Expect(s.status("")).To(Equal(http.StatusUnauthorized))
		Expect(s.status("not-a-token")).To(Equal(http.StatusUnauthorized))
		Expect(s.status(stranger)).To(Equal(http.StatusForbidden))
		Eventually(func() int { return s.status(allowed) }, timeout, poll).Should(Equal(http.StatusOK))
		before := s.scrape(allowed)

		By("a campaign whose agent stage is evicted once, then graded")
		makeTask(ns, "calc", 4).create()
		makeRun(ns, "scored").create()
		name := campaign.TrialName("scored", "calc", 1)
		job := k.job(name, agentStage, 1)
		pod := k.startPod(job, "p1")
		pod.Status.Phase, pod.Status.Reason = corev1.PodFailed, "Evicted"
		Expect(k8s.Status().Update(context.Background(), pod)).To(Succeed())
		k.completeJob(job, "BackoffLimitExceeded")
		k.runStage(name, agentStage, 2, agentSummary(samplePatch, ""))
		k.runStage(name, verifierStage, 1, verifierSummary(sweepRewards(4, 2, 1)))
		Eventually(getRun(ns, "scored"), timeout, poll).Should(Satisfy(completed))

		run := map[string]string{metrics.LabelNamespace: ns, metrics.LabelName: "scored"}
		Eventually(func(g Gomega) {
			after := s.scrape(allowed)
			for name, want := range map[string]float64{"sweep_sweeprun_score": 0.5, "sweep_sweeprun_bugs_resolved": 2, "sweep_sweeprun_bugs_total": 4, "sweep_sweeprun_progress_ratio": 1} {
				v, ok := after.value(name, run)
				g.Expect(ok).To(BeTrue(), "no %s%v", name, run)
				g.Expect(v).To(Equal(want), name)
			}
			v, ok := after.value("sweep_trials", map[string]string{metrics.LabelNamespace: ns, metrics.LabelPhase: string(evalv1.TrialSucceeded), metrics.LabelReason: reasons.Graded})
			g.Expect(ok).To(BeTrue(), "no sweep_trials of the graded trial")
			g.Expect(v).To(Equal(1.0))
			// Only this spec's manager, watching ns alone, ran since the first scrape: the
			// histograms and counters grew by this campaign's observations alone.
			for _, d := range []struct {
				name   string
				labels map[string]string
				want   float64
			}{
				{"sweep_trial_retries_total", map[string]string{metrics.LabelKind: metrics.RetryInfrastructure, metrics.LabelReason: reasons.PodEvicted}, 1},
				{"sweep_stage_duration_seconds", map[string]string{metrics.LabelStage: string(agentStage)}, 1},
				{"sweep_stage_duration_seconds", map[string]string{metrics.LabelStage: string(verifierStage)}, 1},
				{"sweep_harvest_latency_seconds", map[string]string{metrics.LabelStage: string(agentStage)}, 1},
				{"sweep_harvest_latency_seconds", map[string]string{metrics.LabelStage: string(verifierStage)}, 1},
				{"sweep_queue_wait_seconds", map[string]string{}, 1},
				{"sweep_trial_duration_seconds", map[string]string{metrics.LabelPhase: string(evalv1.TrialSucceeded)}, 1},
			} {
				g.Expect(after.count(d.name, d.labels)-before.count(d.name, d.labels)).To(Equal(d.want), "%s%v; the trial's status: %s", d.name, d.labels, trialStatusJSON(ns, name))
			}
		}, timeout, poll).Should(Succeed())

		By("deleting the SweepRun deletes its series")
		Expect(k8s.Delete(context.Background(), getRun(ns, "scored")())).To(Succeed())
		Eventually(func() bool {
			_, ok := s.scrape(allowed).value("sweep_sweeprun_score", run)
			return ok
		}, timeout, poll).Should(BeFalse())
	})

	It("authenticates scrapers on the manager's generated RBAC, serving one namespace", func() {
		ns := newNamespace()
		user := "sweep-manager-metrics-" + ns
		userCfg, _ := managerUser(user)
		role := managerRole("sweep-operator-manager-" + ns)
		Expect(k8s.Create(context.Background(), &rbacv1.RoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "sweep-operator-manager", Namespace: ns},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		})).To(Succeed())
		// TokenReview and SubjectAccessReview are cluster-scoped: a ClusterRoleBinding even here.
		auth := configClusterRole("metrics_auth_role.yaml", "sweep-operator-metrics-auth-"+ns)
		bindClusterRole(auth.Name, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user})
		addr := freeAddress()
		stop := startManagerWith(userCfg, []string{ns}, metrics.ServeOptions{BindAddress: addr, Secure: true}.ServerOptions())
		defer stop()
		s := scraper{url: fmt.Sprintf("https://%s/metrics", addr)}
		allowed, stranger := serviceAccountToken(ns, "prometheus"), serviceAccountToken(ns, "stranger")
		bindMetricsReader(ns, "prometheus")

		Expect(s.status("")).To(Equal(http.StatusUnauthorized))
		Expect(s.status(stranger)).To(Equal(http.StatusForbidden))
		Eventually(func() int { return s.status(allowed) }, timeout, poll).Should(Equal(http.StatusOK))
		runsOneTrial(kubelet{ns: ns}, "scraped")
		Eventually(func() (float64, error) {
			v, ok := s.scrape(allowed).value("sweep_sweeprun_score", map[string]string{metrics.LabelNamespace: ns, metrics.LabelName: "scraped"})
			if !ok {
				return 0, fmt.Errorf("no score series yet")
			}
			return v, nil
		}, timeout, poll).Should(Equal(0.5))
	})

	It("serves plain HTTP to anyone with metrics-secure off", func() {
		addr := freeAddress()
		stop := startManagerWith(cfg, nil, metrics.ServeOptions{BindAddress: addr}.ServerOptions())
		defer stop()
		Eventually(func() error {
			resp, err := http.Get(fmt.Sprintf("http://%s/metrics", addr))
			if err != nil {
				return err
			}
			defer func() { _ = resp.Body.Close() }() // the status is all this reads
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("status %d", resp.StatusCode)
			}
			return nil
		}, timeout, poll).Should(Succeed())
	})
})

// trialStatusJSON is a trial's status as the API server has it, for a failure's message.
func trialStatusJSON(ns, name string) string {
	t := &evalv1.TaskTrial{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, t); err != nil {
		return err.Error()
	}
	b, err := json.Marshal(t.Status)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
