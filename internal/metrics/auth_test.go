package metrics

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestBearerToken(t *testing.T) {
	cases := map[string]struct {
		header    string
		wantToken string
		wantOK    bool
	}{
		"bearer":                       {header: "Bearer abc.def", wantToken: "abc.def", wantOK: true},
		"scheme in lower case":         {header: "bearer abc", wantToken: "abc", wantOK: true},
		"scheme in upper case":         {header: "BEARER abc", wantToken: "abc", wantOK: true},
		"surrounding whitespace":       {header: "  Bearer   abc \t", wantToken: "abc", wantOK: true},
		"tab between scheme and token": {header: "Bearer\tabc", wantToken: "abc", wantOK: true},
		"no header":                    {header: ""},
		"whitespace only":              {header: "   "},
		"scheme without a token":       {header: "Bearer"},
		"scheme and a space":           {header: "Bearer "},
		"a token with a space":         {header: "Bearer abc def"},
		"no space after the scheme":    {header: "Bearerabc"},
		"basic authentication":         {header: "Basic dXNlcjpwYXNz"},
		"token without a scheme":       {header: "abc"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			token, ok := bearerToken(tc.header)
			if diff := cmp.Diff(tc.wantToken, token); diff != "" || ok != tc.wantOK {
				t.Errorf("bearerToken(%q) = %q, %v; want %q, %v", tc.header, token, ok, tc.wantToken, tc.wantOK)
			}
		})
	}
}

func TestExpiringCache(t *testing.T) {
	key := func(s string) [sha256.Size]byte { return sha256.Sum256([]byte(s)) }
	// A step adds (value > 0), or advances the clock and reads every key of want.
	type step struct {
		add     string
		value   int
		ttl     time.Duration
		advance time.Duration
		want    map[string]int // 0: not cached
	}
	cases := map[string][]step{
		"a hit through the TTL, a miss after": {
			{add: "a", value: 1, ttl: time.Minute},
			{advance: time.Minute, want: map[string]int{"a": 1, "b": 0}},
			{advance: time.Nanosecond, want: map[string]int{"a": 0}},
		},
		"each entry its own TTL": {
			{add: "short", value: 1, ttl: 10 * time.Second},
			{add: "long", value: 2, ttl: time.Minute},
			{advance: 11 * time.Second, want: map[string]int{"short": 0, "long": 2}},
		},
		"adding again replaces the value and the TTL": {
			{add: "a", value: 1, ttl: 10 * time.Second},
			{add: "a", value: 2, ttl: time.Minute},
			{advance: 30 * time.Second, want: map[string]int{"a": 2}},
		},
		"bounded: the least recently used entry goes first": {
			{add: "a", value: 1, ttl: time.Minute},
			{add: "b", value: 2, ttl: time.Minute},
			{want: map[string]int{"a": 1}},
			{add: "c", value: 3, ttl: time.Minute},
			{want: map[string]int{"a": 1, "b": 0, "c": 3}},
		},
	}
	for name, steps := range cases {
		t.Run(name, func(t *testing.T) {
			clock := clocktesting.NewFakeClock(time.Now())
			cache := newExpiringCache[int](2, clock)
			for i, s := range steps {
				if s.add != "" {
					cache.add(key(s.add), s.value, s.ttl)
					continue
				}
				clock.Step(s.advance)
				got := map[string]int{}
				for k := range s.want {
					got[k], _ = cache.get(key(k))
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Errorf("step %d: cached values (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// fakeAPIServer answers the TokenReviews and SubjectAccessReviews of the metrics filter.
type fakeAPIServer struct {
	mu sync.Mutex
	// users are the users of the tokens that authenticate.
	users map[string]authenticationv1.UserInfo
	// allowed are the accesses allowed, as "user verb path".
	allowed map[string]bool
	// both answers every SubjectAccessReview with both allowed and denied.
	both bool
	// failTokenReviews and failAccessReviews answer reviews with this HTTP status; 0: none.
	failTokenReviews, failAccessReviews int
	// tokenReviews counts the TokenReviews, accessReviews holds the SubjectAccessReviews' specs.
	tokenReviews  int
	accessReviews []authorizationv1.SubjectAccessReviewSpec
}

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if req.Method != http.MethodPost {
		writeStatus(w, http.StatusMethodNotAllowed)
		return
	}
	switch req.URL.Path {
	case "/apis/authentication.k8s.io/v1/tokenreviews":
		f.tokenReviews++
		if f.failTokenReviews != 0 {
			writeStatus(w, f.failTokenReviews)
			return
		}
		review := &authenticationv1.TokenReview{}
		if !decode(w, req, review) {
			return
		}
		if user, ok := f.users[review.Spec.Token]; ok {
			review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: user}
		} else {
			review.Status = authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}
		}
		writeJSON(w, review)
	case "/apis/authorization.k8s.io/v1/subjectaccessreviews":
		review := &authorizationv1.SubjectAccessReview{}
		if !decode(w, req, review) {
			return
		}
		f.accessReviews = append(f.accessReviews, review.Spec)
		if f.failAccessReviews != 0 {
			writeStatus(w, f.failAccessReviews)
			return
		}
		access := review.Spec.NonResourceAttributes
		review.Status.Allowed = access != nil && f.allowed[review.Spec.User+" "+access.Verb+" "+access.Path]
		if f.both {
			review.Status = authorizationv1.SubjectAccessReviewStatus{Allowed: true, Denied: true}
		}
		writeJSON(w, review)
	default:
		writeStatus(w, http.StatusNotFound)
	}
}

// decode reads the request's object in the encoding it declares, client-go's protobuf or
// JSON, answering 400 if it cannot.
func decode(w http.ResponseWriter, req *http.Request, into runtime.Object) bool {
	body, err := io.ReadAll(req.Body)
	if err == nil {
		_, _, err = scheme.Codecs.UniversalDeserializer().Decode(body, nil, into)
	}
	if err != nil {
		writeStatus(w, http.StatusBadRequest)
		return false
	}
	return true
}

// allow lets user use verb on path.
func (f *fakeAPIServer) allow(user, verb, path string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.allowed[user+" "+verb+" "+path] = true
}

// reviews are the number of TokenReviews and the SubjectAccessReviews' specs received.
func (f *fakeAPIServer) reviews() (tokenReviews int, accessReviews []authorizationv1.SubjectAccessReviewSpec) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tokenReviews, slices.Clone(f.accessReviews)
}

// writeStatus answers a failure as the API server does, with a detail callers must not see.
func writeStatus(w http.ResponseWriter, code int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(&metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(code), Message: "secret detail of the API server",
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// newFakeAPIServer has alice (allowed get /metrics) and bob (allowed nothing), and a reviewer
// through it by clock.
func newFakeAPIServer(t *testing.T, clock *clocktesting.FakeClock) (*fakeAPIServer, *reviewer) {
	t.Helper()
	f := &fakeAPIServer{
		users: map[string]authenticationv1.UserInfo{
			"alice-token": {Username: "alice", UID: "alice-uid", Groups: []string{"scrapers", "system:authenticated"}},
			"bob-token":   {Username: "bob", Groups: []string{"system:authenticated"}},
		},
		allowed: map[string]bool{"alice get /metrics": true},
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	r, err := newReviewer(&rest.Config{Host: srv.URL, QPS: -1}, srv.Client(), clock)
	if err != nil {
		t.Fatal(err)
	}
	return f, r
}

// serve is the status, body and log of a request through r's filter to a handler answering
// "metrics"; header is its Authorization header, none if empty.
func serve(t *testing.T, r *reviewer, method, path, header string) (code int, body, log string) {
	t.Helper()
	var logged strings.Builder
	logger := funcr.New(func(prefix, args string) { logged.WriteString(args + "\n") }, funcr.Options{Verbosity: 4})
	handler, err := r.filter(logger, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if h := req.Header.Get("Authorization"); h != "" {
			t.Errorf("the handler was given the Authorization header %q", h)
		}
		_, _ = fmt.Fprint(w, "metrics")
	}))
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(method, path, nil)
	if header != "" {
		req.Header.Set("Authorization", header)
	}
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String(), logged.String()
}

func TestAuthFilter(t *testing.T) {
	refused := func(code int) string { return http.StatusText(code) + "\n" }
	metricsGet := func(user, uid string, groups ...string) authorizationv1.SubjectAccessReviewSpec {
		return authorizationv1.SubjectAccessReviewSpec{User: user, UID: uid, Groups: groups,
			NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}}
	}
	cases := map[string]struct {
		setup        func(*fakeAPIServer)
		method, path string // GET /metrics if empty
		header       string
		wantCode     int
		wantBody     string
		wantTokens   int
		wantAccesses []authorizationv1.SubjectAccessReviewSpec
		wantLog      string
	}{
		"authenticated and allowed": {
			header: "Bearer alice-token", wantCode: http.StatusOK, wantBody: "metrics", wantTokens: 1,
			wantAccesses: []authorizationv1.SubjectAccessReviewSpec{metricsGet("alice", "alice-uid", "scrapers", "system:authenticated")},
		},
		"no Authorization header": {
			wantCode: http.StatusUnauthorized, wantBody: refused(http.StatusUnauthorized),
		},
		"not a bearer token": {
			header: "Basic YWxpY2U6cGFzcw==", wantCode: http.StatusUnauthorized, wantBody: refused(http.StatusUnauthorized),
		},
		"a token the API server does not authenticate": {
			header: "Bearer forged", wantCode: http.StatusUnauthorized, wantBody: refused(http.StatusUnauthorized), wantTokens: 1,
			wantLog: "its token does not authenticate",
		},
		"authenticated but denied": {
			header: "Bearer bob-token", wantCode: http.StatusForbidden, wantBody: refused(http.StatusForbidden), wantTokens: 1,
			wantAccesses: []authorizationv1.SubjectAccessReviewSpec{metricsGet("bob", "", "system:authenticated")},
			wantLog:      `"user"="bob"`,
		},
		"allowed get, not post": {
			method: http.MethodPost, header: "Bearer alice-token", wantCode: http.StatusForbidden, wantBody: refused(http.StatusForbidden), wantTokens: 1,
			wantAccesses: []authorizationv1.SubjectAccessReviewSpec{{User: "alice", UID: "alice-uid", Groups: []string{"scrapers", "system:authenticated"},
				NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "post"}}},
		},
		"allowed /metrics, not another path": {
			path: "/debug/pprof/", header: "Bearer alice-token", wantCode: http.StatusForbidden, wantBody: refused(http.StatusForbidden), wantTokens: 1,
			wantAccesses: []authorizationv1.SubjectAccessReviewSpec{{User: "alice", UID: "alice-uid", Groups: []string{"scrapers", "system:authenticated"},
				NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/debug/pprof/", Verb: "get"}}},
		},
		"the user's extra, and system:authenticated added to its groups": {
			setup: func(f *fakeAPIServer) {
				f.users["carol-token"] = authenticationv1.UserInfo{Username: "carol", Groups: []string{"scrapers"},
					Extra: map[string]authenticationv1.ExtraValue{"scopes": {"metrics"}}}
				f.allowed["carol get /metrics"] = true
			},
			header: "Bearer carol-token", wantCode: http.StatusOK, wantBody: "metrics", wantTokens: 1,
			wantAccesses: []authorizationv1.SubjectAccessReviewSpec{{User: "carol", Groups: []string{"scrapers", "system:authenticated"},
				Extra:                 map[string]authorizationv1.ExtraValue{"scopes": {"metrics"}},
				NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}}},
		},
		"an answer both allowed and denied is denied": {
			setup:  func(f *fakeAPIServer) { f.both = true },
			header: "Bearer alice-token", wantCode: http.StatusForbidden, wantBody: refused(http.StatusForbidden), wantTokens: 1,
			wantAccesses: []authorizationv1.SubjectAccessReviewSpec{metricsGet("alice", "alice-uid", "scrapers", "system:authenticated")},
		},
		"TokenReview fails": {
			setup:  func(f *fakeAPIServer) { f.failTokenReviews = http.StatusInternalServerError },
			header: "Bearer alice-token", wantCode: http.StatusInternalServerError, wantBody: refused(http.StatusInternalServerError), wantTokens: 1,
			wantLog: "create a TokenReview: secret detail of the API server",
		},
		"the manager may not create TokenReviews": {
			setup:  func(f *fakeAPIServer) { f.failTokenReviews = http.StatusForbidden },
			header: "Bearer alice-token", wantCode: http.StatusInternalServerError, wantBody: refused(http.StatusInternalServerError), wantTokens: 1,
			wantLog: "allowing create on tokenreviews.authentication.k8s.io (config/rbac/metrics_auth_role.yaml)",
		},
		"SubjectAccessReview fails": {
			setup:  func(f *fakeAPIServer) { f.failAccessReviews = http.StatusInternalServerError },
			header: "Bearer alice-token", wantCode: http.StatusInternalServerError, wantBody: refused(http.StatusInternalServerError), wantTokens: 1,
			wantAccesses: []authorizationv1.SubjectAccessReviewSpec{metricsGet("alice", "alice-uid", "scrapers", "system:authenticated")},
			wantLog:      "create a SubjectAccessReview: secret detail of the API server",
		},
		"the manager may not create SubjectAccessReviews": {
			setup:  func(f *fakeAPIServer) { f.failAccessReviews = http.StatusForbidden },
			header: "Bearer alice-token", wantCode: http.StatusInternalServerError, wantBody: refused(http.StatusInternalServerError), wantTokens: 1,
			wantAccesses: []authorizationv1.SubjectAccessReviewSpec{metricsGet("alice", "alice-uid", "scrapers", "system:authenticated")},
			wantLog:      "allowing create on subjectaccessreviews.authorization.k8s.io",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f, r := newFakeAPIServer(t, clocktesting.NewFakeClock(time.Now()))
			if tc.setup != nil {
				f.mu.Lock()
				tc.setup(f)
				f.mu.Unlock()
			}
			method, path := http.MethodGet, "/metrics"
			if tc.method != "" {
				method = tc.method
			}
			if tc.path != "" {
				path = tc.path
			}
			code, body, log := serve(t, r, method, path, tc.header)
			if code != tc.wantCode || body != tc.wantBody {
				t.Errorf("answer %d %q, want %d %q", code, body, tc.wantCode, tc.wantBody)
			}
			tokens, accesses := f.reviews()
			if tokens != tc.wantTokens {
				t.Errorf("%d TokenReviews, want %d", tokens, tc.wantTokens)
			}
			if diff := cmp.Diff(tc.wantAccesses, accesses); diff != "" {
				t.Errorf("SubjectAccessReviews (-want +got):\n%s", diff)
			}
			if !strings.Contains(log, tc.wantLog) {
				t.Errorf("log %q does not say %q", log, tc.wantLog)
			}
		})
	}
}

func TestAuthFilterCaches(t *testing.T) {
	// Each step requests GET /metrics with token at a time since the first; the reviews are
	// counted from the first. A cached review holds through its TTL and expires just after.
	type step struct {
		at                       time.Duration
		token                    string
		wantCode                 int
		wantTokens, wantAccesses int
	}
	const s = time.Second
	steps := []step{
		{at: 0, token: "alice-token", wantCode: http.StatusOK, wantTokens: 1, wantAccesses: 1},
		{at: 0, token: "alice-token", wantCode: http.StatusOK, wantTokens: 1, wantAccesses: 1},
		{at: 0, token: "bob-token", wantCode: http.StatusForbidden, wantTokens: 2, wantAccesses: 2},
		{at: 0, token: "forged", wantCode: http.StatusUnauthorized, wantTokens: 3, wantAccesses: 2},
		// Bob is allowed from here on, but his denial is cached 30 s.
		{at: 10 * s, token: "bob-token", wantCode: http.StatusForbidden, wantTokens: 3, wantAccesses: 2},
		{at: 10 * s, token: "forged", wantCode: http.StatusUnauthorized, wantTokens: 3, wantAccesses: 2},
		{at: 11 * s, token: "forged", wantCode: http.StatusUnauthorized, wantTokens: 4, wantAccesses: 2},
		{at: 30 * s, token: "bob-token", wantCode: http.StatusForbidden, wantTokens: 4, wantAccesses: 2},
		{at: 31 * s, token: "bob-token", wantCode: http.StatusOK, wantTokens: 4, wantAccesses: 3},
		{at: 120 * s, token: "alice-token", wantCode: http.StatusOK, wantTokens: 4, wantAccesses: 3},
		{at: 121 * s, token: "alice-token", wantCode: http.StatusOK, wantTokens: 5, wantAccesses: 3},
		// Alice's token was reviewed again at 121 s and holds to 241 s.
		{at: 300 * s, token: "alice-token", wantCode: http.StatusOK, wantTokens: 6, wantAccesses: 3},
		{at: 301 * s, token: "alice-token", wantCode: http.StatusOK, wantTokens: 6, wantAccesses: 4},
	}
	start := time.Now()
	clock := clocktesting.NewFakeClock(start)
	f, r := newFakeAPIServer(t, clock)
	for i, st := range steps {
		if i == 4 {
			f.allow("bob", "get", "/metrics")
		}
		clock.SetTime(start.Add(st.at))
		code, _, _ := serve(t, r, http.MethodGet, "/metrics", "Bearer "+st.token)
		tokens, accesses := f.reviews()
		if diff := cmp.Diff([]int{st.wantCode, st.wantTokens, st.wantAccesses}, []int{code, tokens, len(accesses)}); diff != "" {
			t.Errorf("step %d, %s at %s: status, TokenReviews, SubjectAccessReviews (-want +got):\n%s", i, st.token, st.at, diff)
		}
	}
}

func TestAuthFilterBoundsItsCaches(t *testing.T) {
	f, r := newFakeAPIServer(t, clocktesting.NewFakeClock(time.Now()))
	for i := range reviewCacheEntries + 100 {
		token := fmt.Sprintf("random-%d", i)
		f.mu.Lock()
		f.users[token] = authenticationv1.UserInfo{Username: token}
		f.mu.Unlock()
		if code, _, _ := serve(t, r, http.MethodGet, "/metrics", "Bearer "+token); code != http.StatusForbidden {
			t.Fatalf("%s: status %d, want %d", token, code, http.StatusForbidden)
		}
	}
	if diff := cmp.Diff([]int{reviewCacheEntries, reviewCacheEntries}, []int{len(r.users.lru.Keys()), len(r.decisions.lru.Keys())}); diff != "" {
		t.Errorf("users and decisions cached (-want +got):\n%s", diff)
	}
}

func TestAuthFilterRejectsABadConfig(t *testing.T) {
	if _, err := AuthFilter(&rest.Config{Host: "http://[::1"}, http.DefaultClient); err == nil {
		t.Error("AuthFilter accepted an API server URL that does not parse")
	}
}
