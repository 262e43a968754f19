package controllers

import (
	"context"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	evalv1 "github.com/swe-sweep/sweep-operator/api/v1alpha1"
)

func TestEgressPoliciesEnsure(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	policy := func() *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "run-egress-c", Namespace: "ns"}}
	}
	// Each step ensures the policy at t0+at, after the policy was deleted (as a cache that does
	// not show it yet, or a user, would make it look) when deleteFirst.
	type step struct {
		at          time.Duration
		deleteFirst bool
		wantCreates int
	}
	cases := map[string]struct {
		existing bool
		steps    []step
	}{
		"absent: created once":                                  {steps: []step{{wantCreates: 1}, {at: time.Second}}},
		"created by another manager: not created":               {existing: true, steps: []step{{}}},
		"not shown yet within the cache lag: not created again": {steps: []step{{wantCreates: 1}, {at: 10 * time.Second, deleteFirst: true}}},
		"gone past the cache lag: created again":                {steps: []step{{wantCreates: 1}, {at: policyCacheLag + time.Second, deleteFirst: true, wantCreates: 1}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			creates := 0
			b := fake.NewClientBuilder().WithScheme(evalv1.NewScheme()).WithInterceptorFuncs(interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					creates++
					return c.Create(ctx, obj, opts...)
				}})
			if tc.existing {
				b = b.WithObjects(policy())
			}
			c := b.Build()
			var e egressPolicies
			for i, s := range tc.steps {
				if s.deleteFirst {
					if err := c.Delete(context.Background(), policy()); err != nil {
						t.Fatal(err)
					}
				}
				creates = 0
				if err := e.ensure(context.Background(), c, policy(), t0.Add(s.at)); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if creates != s.wantCreates {
					t.Errorf("step %d: %d creates, want %d", i, creates, s.wantCreates)
				}
			}
		})
	}
}
