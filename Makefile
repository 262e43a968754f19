# sweep-operator
CONTROLLER_GEN_VERSION ?= v0.23.0
SETUP_ENVTEST_DIR := bin/k8s
GO ?= go
BIN := $(CURDIR)/bin
CONTROLLER_GEN := $(BIN)/controller-gen-$(CONTROLLER_GEN_VERSION)

.PHONY: all build deps manifests generate test test-corpus swebench-goldens lint envtest helm azurite fmt vet verify-generated clean deploy demo demo-down e2e cluster-up cluster-down scale breakdown

all: build

$(CONTROLLER_GEN):
	GOBIN=$(BIN) $(GO) install sigs.k8s.io/controller-tools/cmd/controller-gen@$(CONTROLLER_GEN_VERSION)
	mv $(BIN)/controller-gen $@

## generate: deepcopy functions for the API types.
generate: $(CONTROLLER_GEN)
	$(CONTROLLER_GEN) object paths=./api/...

## manifests: CRDs and RBAC from markers (the manager's ClusterRole from controllers/, the metrics
## endpoint's TokenReview and SubjectAccessReview rights from internal/metrics), copied into the
## Helm chart (its crds/ and the rules of its ClusterRoles).
CHART := charts/sweep-operator
manifests: $(CONTROLLER_GEN)
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=sweep-operator-manager paths=./controllers/... output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) rbac:roleName=sweep-operator-metrics-auth paths=./internal/metrics/... output:rbac:stdout > config/rbac/metrics_auth_role.yaml
	rm -f $(CHART)/crds/*.yaml && cp config/crd/bases/*.yaml $(CHART)/crds/
	cp config/rbac/role.yaml $(CHART)/files/role.yaml
	cp config/rbac/metrics_auth_role.yaml $(CHART)/files/metrics_auth_role.yaml

build: generate
	CGO_ENABLED=0 $(GO) build -o $(BIN)/ ./cmd/...

## envtest: kube-apiserver and etcd built from the Go module proxy.
envtest:
	bash hack/envtest.sh

## helm: helm built from the Go module proxy into .cache/tools, once per version (hack/helm.sh).
helm:
	bash hack/helm.sh >/dev/null

## azurite: the Azure Blob emulator the artifact store's azblob:// tests run (npm, once).
azurite:
	bash hack/azurite.sh >/dev/null

fmt:
	gofmt -l -w api charts cmd config controllers internal test hack 2>/dev/null || true

vet:
	$(GO) vet ./...

## verify-generated: fails when make manifests generate changes the tree.
verify-generated: manifests generate
	@git diff --exit-code -- api config $(CHART) || { echo "generated files are stale: run 'make manifests generate' and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- api config $(CHART))" || { git status --porcelain -- api config $(CHART); echo "untracked generated files: commit them"; exit 1; }

## deps: the Debian packages the tests run for real (git, patch, python3 with pytest).
deps:
	bash hack/deps.sh

## test: every unit and integration test (builds the envtest binaries and helm on first use).
test: deps manifests generate envtest helm azurite
	KUBEBUILDER_ASSETS=$(CURDIR)/$(SETUP_ENVTEST_DIR) $(GO) test -p 2 ./... 

## test-corpus: the corpus tests over the real task.toml corpus, e.g.
## make test-corpus CORPUS=/path/to/swe-sweep/tasks (fails when CORPUS is missing or empty,
## or uses a key path or TOML type that internal/taskdef/testdata/corpus lacks).
CORPUS_TESTS := ^(TestLoadSWESweepCorpus|TestTasksValidateCorpus)$$
test-corpus:
	@test -n "$(CORPUS)" || { echo "test-corpus: say where the corpus is: make test-corpus CORPUS=path/to/tasks" >&2; exit 1; }
	SWEEP_CORPUS=$(abspath $(CORPUS)) $(GO) test -count=1 -v -run '$(CORPUS_TESTS)' ./internal/taskdef/ ./cmd/sweep/

## swebench-goldens: rewrite logparse's parser goldens from SWE-bench's own parsers (tags v4.1.0, v5.0.1).
swebench-goldens:
	@test -n "$(SWEBENCH_GIT)" || { echo "swebench-goldens: say where SWE-bench is: make swebench-goldens SWEBENCH_GIT=path/or/url [SEED=1]" >&2; exit 1; }
	hack/swebench-goldens/run.sh $(SWEBENCH_GIT) internal/swebench/logparse/testdata/official $(or $(SEED),1)

## scale: N trials (default 1000) drained through the real manager on kwok's simulated nodes,
## beside a baseline of plain Jobs, at default and raised client rates, and a manager killed
## mid-drain (test/scale, docs/scale.md); prints the figures and writes scale.json. It fails
## only on a trial lost or run twice: `make scale N=200` is CI's smoke test. SCALE_FLAGS
## passes more flags (go run ./test/scale -h lists them).
N ?= 1000
scale:
	bash hack/scale.sh $(N) $(SCALE_FLAGS)

## breakdown: where a trial's time goes on the local cluster (test/breakdown, docs/scale.md): the
## stack of hack/stack.sh, then SweepRuns of the sample tasks with the oracle agent, timed step by
## step; leaves the cluster up. BREAKDOWN_FLAGS passes flags, e.g. '-repeat 5' (one trial at a
## time, the default) or '-load' (3 tasks x 10 attempts, parallelism 10, against the grading work).
breakdown:
	bash hack/breakdown.sh $(BREAKDOWN_FLAGS)

## lint: golangci-lint, pinned in hack/lint.sh, with .golangci.yml.
lint:
	bash hack/lint.sh

## cluster-up / cluster-down: the local single-node Kubernetes of hack/cluster.sh.
cluster-up:
	hack/cluster.sh up
cluster-down:
	hack/cluster.sh down

## deploy: build the images and install the operator into the current cluster.
deploy: build
	hack/images.sh hook
	hack/images.sh manager
	@if [ -z "$$REGISTRY" ]; then hack/images.sh import; fi
	hack/deploy.sh

## demo: the README's main command (local cluster, images, operator, sample campaign, report).
demo:
	hack/demo.sh

demo-down:
	hack/cluster.sh down

## e2e: the end-to-end suite on the local cluster; brings it up and down itself.
e2e:
	hack/e2e.sh

clean:
	rm -rf bin cover.out
