package metrics

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilcache "k8s.io/apimachinery/pkg/util/cache"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// How long reviews are cached. Allowed and denied are controller-runtime's filter's; an
// authenticated token is kept as long as kube-apiserver's token webhook keeps one by default,
// and an unauthenticated one briefly, so that a token just issued works soon. A revoked token
// or binding keeps its access at most authenticatedTTL or allowedTTL.
const (
	authenticatedTTL   = 2 * time.Minute
	unauthenticatedTTL = 10 * time.Second
	allowedTTL         = 5 * time.Minute
	deniedTTL          = 30 * time.Second
)

// reviewCacheEntries bounds each cache, so that requests with random tokens or paths cost
// reviews but not memory: an entry is a 32-byte key and a user or a bool.
const reviewCacheEntries = 1024

// reviewTimeout bounds each review, as controller-runtime's filter bounds its TokenReviews.
const reviewTimeout = 10 * time.Second

// The user and groups of the API server's authenticator that say whether a user authenticated.
const (
	anonymousUser        = "system:anonymous"
	authenticatedGroup   = "system:authenticated"
	unauthenticatedGroup = "system:unauthenticated"
)

// AuthFilter is a metrics server FilterProvider. It lets a request through only if its bearer
// token authenticates (TokenReview) and the token's user may use the request's verb, its
// lower-cased method, on its path as a non-resource URL (SubjectAccessReview), as
// controller-runtime's filters.WithAuthenticationAndAuthorization does; but that one links
// k8s.io/apiserver and cel-go, 14 MB of the manager's binary, and this one only client-go's
// typed clients, which the manager links anyway.
//
// The manager needs create on tokenreviews and subjectaccessreviews (the rbac markers in
// metrics.go); a scraper needs get on the nonResourceURL /metrics.
func AuthFilter(config *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	r, err := newReviewer(config, httpClient, clock.RealClock{})
	if err != nil {
		return nil, err
	}
	return r.filter, nil
}

// newReviewer reviews through the API server of config, caching by the clock now.
func newReviewer(config *rest.Config, httpClient *http.Client, now utilcache.Clock) (*reviewer, error) {
	authn, err := authenticationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("TokenReview client of the metrics filter: %w", err)
	}
	authz, err := authorizationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, fmt.Errorf("SubjectAccessReview client of the metrics filter: %w", err)
	}
	return &reviewer{
		tokenReviews:  authn.TokenReviews(),
		accessReviews: authz.SubjectAccessReviews(),
		users:         newExpiringCache[*authenticationv1.UserInfo](reviewCacheEntries, now),
		decisions:     newExpiringCache[bool](reviewCacheEntries, now),
	}, nil
}

// reviewer authenticates and authorises requests through the API server, caching its answers.
type reviewer struct {
	tokenReviews  authenticationv1client.TokenReviewInterface
	accessReviews authorizationv1client.SubjectAccessReviewInterface
	// users are the users of tokens by the tokens' SHA-256, nil for a token that does not
	// authenticate: the cache holds no token.
	users expiringCache[*authenticationv1.UserInfo]
	// decisions say whether a SubjectAccessReview is allowed, by its spec's SHA-256.
	decisions expiringCache[bool]
}

// filter is a metricsserver.Filter. Its answers name no user nor reason: those go to log.
func (r *reviewer) filter(log logr.Logger, handler http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		token, ok := bearerToken(req.Header.Get("Authorization"))
		if !ok {
			refuse(w, http.StatusUnauthorized)
			return
		}
		user, err := r.authenticate(req.Context(), token)
		if err != nil {
			log.Error(err, "Refusing a metrics request: its token could not be reviewed")
			refuse(w, http.StatusInternalServerError)
			return
		}
		if user == nil {
			log.V(4).Info("Refusing a metrics request: its token does not authenticate")
			refuse(w, http.StatusUnauthorized)
			return
		}
		verb := strings.ToLower(req.Method)
		allowed, err := r.authorize(req.Context(), user, req.URL.Path, verb)
		if err != nil {
			log.Error(err, "Refusing a metrics request: its access could not be reviewed", "user", user.Username)
			refuse(w, http.StatusInternalServerError)
			return
		}
		if !allowed {
			log.V(4).Info("Refusing a metrics request: its user may not access its path", "user", user.Username, "verb", verb)
			refuse(w, http.StatusForbidden)
			return
		}
		// As the API server does, so that nothing downstream is tempted to reuse the token.
		req.Header.Del("Authorization")
		handler.ServeHTTP(w, req)
	}), nil
}

func refuse(w http.ResponseWriter, code int) { http.Error(w, http.StatusText(code), code) }

// bearerToken is the token of an Authorization header "Bearer <token>": the scheme in any
// case (RFC 9110), whitespace around either trimmed, and no whitespace in the token.
func bearerToken(header string) (string, bool) {
	fields := strings.Fields(header)
	if len(fields) != 2 || !strings.EqualFold(fields[0], "Bearer") {
		return "", false
	}
	return fields[1], true
}

// authenticate is the user of token, nil if the API server does not authenticate it.
func (r *reviewer) authenticate(ctx context.Context, token string) (*authenticationv1.UserInfo, error) {
	key := sha256.Sum256([]byte(token))
	if user, ok := r.users.get(key); ok {
		return user, nil
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	// No audiences, as controller-runtime's filter: the API server's own.
	review, err := r.tokenReviews.Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return nil, reviewError("TokenReview", "tokenreviews.authentication.k8s.io", err)
	}
	if !review.Status.Authenticated {
		r.users.add(key, nil, unauthenticatedTTL)
		return nil, nil
	}
	user := withAuthenticatedGroup(review.Status.User)
	r.users.add(key, user, authenticatedTTL)
	return user, nil
}

// withAuthenticatedGroup adds system:authenticated to the groups of an authenticated user, as
// the API server's authenticator does, for the RBAC bindings to that group.
func withAuthenticatedGroup(user authenticationv1.UserInfo) *authenticationv1.UserInfo {
	if user.Username == anonymousUser || slices.Contains(user.Groups, authenticatedGroup) || slices.Contains(user.Groups, unauthenticatedGroup) {
		return &user
	}
	user.Groups = append(slices.Clip(user.Groups), authenticatedGroup)
	return &user
}

// authorize says whether user may use verb on the non-resource URL path.
func (r *reviewer) authorize(ctx context.Context, user *authenticationv1.UserInfo, path, verb string) (bool, error) {
	spec := authorizationv1.SubjectAccessReviewSpec{
		User:                  user.Username,
		UID:                   user.UID,
		Groups:                user.Groups,
		Extra:                 accessReviewExtra(user.Extra),
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
	}
	// JSON, as the API server's webhook authorizer keys its cache: unambiguous, with the
	// extra's keys sorted.
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return false, fmt.Errorf("cache key of the SubjectAccessReview of user %q: %w", user.Username, err)
	}
	key := sha256.Sum256(specJSON)
	if allowed, ok := r.decisions.get(key); ok {
		return allowed, nil
	}
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	review, err := r.accessReviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
	if err != nil {
		return false, reviewError("SubjectAccessReview", "subjectaccessreviews.authorization.k8s.io", err)
	}
	// A deny wins over an allow: the API server's webhook authorizer denies an answer with both.
	allowed := review.Status.Allowed && !review.Status.Denied
	ttl := deniedTTL
	if allowed {
		ttl = allowedTTL
	}
	r.decisions.add(key, allowed, ttl)
	return allowed, nil
}

func accessReviewExtra(extra map[string]authenticationv1.ExtraValue) map[string]authorizationv1.ExtraValue {
	if extra == nil {
		return nil
	}
	out := make(map[string]authorizationv1.ExtraValue, len(extra))
	for k, v := range extra {
		out[k] = authorizationv1.ExtraValue(v)
	}
	return out
}

// reviewError is the failure to create a review of kind, with the fix when it is the
// manager's RBAC.
func reviewError(kind, resource string, err error) error {
	if apierrors.IsForbidden(err) {
		return fmt.Errorf("create a %s: %w: bind the manager's ServiceAccount to a ClusterRole allowing create on %s (config/rbac/metrics_auth_role.yaml)", kind, err, resource)
	}
	return fmt.Errorf("create a %s: %w", kind, err)
}

// expiringCache is a least-recently-used cache of at most a fixed number of entries, each
// expiring after its own TTL, keyed by SHA-256.
type expiringCache[V any] struct{ lru *utilcache.LRUExpireCache }

func newExpiringCache[V any](maxEntries int, now utilcache.Clock) expiringCache[V] {
	return expiringCache[V]{lru: utilcache.NewLRUExpireCacheWithClock(maxEntries, now)}
}

func (c expiringCache[V]) get(key [sha256.Size]byte) (V, bool) {
	v, ok := c.lru.Get(key)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

func (c expiringCache[V]) add(key [sha256.Size]byte, value V, ttl time.Duration) {
	c.lru.Add(key, value, ttl)
}
