#!/usr/bin/env bash
# Flux (Apache-2.0): the source-controller and kustomize-controller the e2e suite applies
# campaigns from Git with (docs/gitops.md), each built once from the Go module proxy into
# .cache/tools/<controller>-<version>, with their CRDs and manifests from the same module versions.
#
#   hack/flux.sh             build both when missing, print their paths
#   hack/flux.sh --path      print the paths only, built or not
#   hack/flux.sh manifests   render the install into .cache/flux/<version>/flux.yaml, print its path
#   hack/flux.sh up          build, images (hack/images.sh flux), import into the local cluster,
#                            install into the namespace flux-system, wait for both; idempotent
#   hack/flux.sh down        uninstall: every Kustomization and GitRepository first (their
#                            finalizers need the controllers), then the rest
#
# Pinned at v1.9.6: v1.10.x declares Go 1.27, the toolchain here is 1.26.
#
# What differs from the controllers' own config/ here, and why (the local cluster of
# hack/cluster.sh has no DNS and no kube-proxy):
#   - source-controller advertises its artifacts at its Pod IP (--storage-adv-addr=$(POD_IP):9090,
#     the downward API), not at its Service's DNS name, which nothing here resolves, and which
#     would not route: kustomize-controller downloads each revision from that URL;
#   - one namespace, flux-system, as Flux's own install has it, with a ServiceAccount per
#     controller: kustomize-controller's is bound to cluster-admin (it applies anything Git
#     holds), source-controller's only to its own role;
#   - leader election off (one replica), images built here without Docker, remote kustomize
#     bases off (nothing outside is reachable).
#   KUBECONFIG   the cluster (default: the local cluster of hack/cluster.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH=/usr/local/go/bin:$PATH
FLUX_VERSION=${FLUX_VERSION:-v1.9.6}
CONTROLLERS=(source-controller kustomize-controller)
NS=flux-system
# Module versions a controller requires that this machine's module proxy does not serve, with
# the version used instead: pkg/artifact v0.18.1 to v0.18.3 changed only their go.mod's
# requirements (which the build takes from source-controller's go.mod anyway), not its code.
SUBSTITUTES=(github.com/fluxcd/pkg/artifact@v0.18.3=v0.18.0)
work=$root/.cache/flux/$FLUX_VERSION
cluster=$(realpath -m "${CLUSTER_DIR:-$root/.cache/cluster}")
export KUBECONFIG=${KUBECONFIG:-$cluster/kubeconfig}
kubectl=${KUBECTL:-$root/bin/k8s/kubectl}
command -v "$kubectl" >/dev/null || kubectl=kubectl
kc() { "$kubectl" "$@"; }
T0=$(date +%s)
say() { echo "[flux $(( $(date +%s) - T0 ))s] $*" >&2; }

binary() { echo "$root/.cache/tools/$1-$FLUX_VERSION"; }
module_dir() { go mod download -json "github.com/fluxcd/$1@$FLUX_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'; }

# build NAME: github.com/fluxcd/NAME's main package, in a throwaway module that requires it and
# repeats its replace directives (`go install` refuses a module that has any), but for the one
# that points at its own ./api folder: that module is served at the same version. No `go mod
# tidy`: it would fetch the test-only modules too, some of which the proxy here does not serve.
build() {
  local name=$1 mod=github.com/fluxcd/$1 out t0
  out=$(binary "$1")
  [ -x "$out" ] && return
  local dir=$root/.cache/k8s-build/flux-$name
  t0=$(date +%s)
  say "building $name $FLUX_VERSION (once, into ${out#$root/})"
  mkdir -p "$dir" "$root/.cache/tools"
  # .module-VERSION marks a module set up to the end
  if [ ! -f "$dir/.module-$FLUX_VERSION" ]; then
    (cd "$dir"
     rm -f go.mod go.sum .module-*
     printf 'module sweep.local/fluxbuild\n\ngo 1.26.0\n' > go.mod
     printf '//go:build tools\n\npackage tools\n\nimport _ "%s"\n' "$mod" > tools.go
     local gomod r s m v
     gomod=$(go mod download -json "$mod@$FLUX_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
     # its replace directives, on one line or in a block, as old=new@version
     while read -r r; do go mod edit -replace="$r"; done < <(awk '
       /^replace \(/ { block = 1; next }
       block && /^\)/ { block = 0; next }
       /^replace / { sub(/^replace /, ""); line = $0 }
       block { line = $0 }
       line != "" { sub(/\/\/.*/, "", line); n = split(line, w, " ")
         if (n == 4 && w[2] == "=>" && w[3] !~ /^\./) print w[1] "=" w[3] "@" w[4]
         line = "" }' "$gomod")
     go mod edit -require="$mod@$FLUX_VERSION"
     for s in "${SUBSTITUTES[@]}"; do
       m=${s%%@*} v=${s#*@}; v=${v%=*}
       [ "$(go list -m -mod=mod -f '{{.Version}}' "$m" 2>/dev/null)" = "$v" ] || continue
       go mod download "$m@$v" 2>/dev/null && continue
       say "$m@$v is not served here: using ${s##*=}"
       go mod edit -replace="$m=$m@${s##*=}"
     done
     touch ".module-$FLUX_VERSION")
  fi
  # A name of its own while building, so a half-built binary never takes the versioned one.
  # Static (CGO off), as Flux's own images are; -p 2 for this kind of machine.
  (cd "$dir" && CGO_ENABLED=0 go build -mod=mod -p "${BUILD_PARALLELISM:-2}" -trimpath -ldflags "-s -w" \
    -o "$out.tmp" "$mod")
  mv "$out.tmp" "$out"
  say "built $name in $(( $(date +%s) - t0 ))s"
}

build_all() { local c; for c in "${CONTROLLERS[@]}"; do build "$c"; done; }

# manifests: each controller's config/crd, config/rbac and config/manager of the same module
# version, through a kustomization of ours that changes what the header says.
manifests() {
  local c dir ref resources="" images=""
  mkdir -p "$work"
  for c in "${CONTROLLERS[@]}"; do
    dir=$(module_dir "$c")
    [ -d "$dir/config/manager" ] || { echo "no config/manager in $dir" >&2; exit 1; }
    ref=$(cat "$root/.cache/images/flux-$c.ref" 2>/dev/null) || { echo "no $c image: run hack/images.sh flux" >&2; exit 1; }
    dir=$(realpath --relative-to="$work" "$dir")
    resources+="- $dir/config/crd
- $dir/config/rbac
- $dir/config/manager
"
    images+="- name: fluxcd/$c
  newName: ${ref%:*}
  newTag: ${ref##*:}
"
  done
  cat > "$work/kustomization.yaml" <<YAML
# Written by hack/flux.sh from github.com/fluxcd/{source,kustomize}-controller@$FLUX_VERSION;
# see its header.
namespace: $NS
resources:
- namespace.yaml
$resources
images:
$images
patches:
- patch: |-
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: source-controller
    spec:
      template:
        spec:
          serviceAccountName: source-controller
          containers:
          - name: manager
            env:
            - name: POD_IP
              valueFrom:
                fieldRef:
                  fieldPath: status.podIP
            args:
            - --watch-all-namespaces
            - --log-level=info
            - --log-encoding=json
            - --enable-leader-election=false
            - --storage-path=/data
            - --storage-adv-addr=\$(POD_IP):9090
            resources:
              requests:
                cpu: 20m
                memory: 64Mi
- patch: |-
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: kustomize-controller
    spec:
      template:
        spec:
          serviceAccountName: kustomize-controller
          containers:
          - name: manager
            args:
            - --watch-all-namespaces
            - --log-level=info
            - --log-encoding=json
            - --enable-leader-election=false
            - --no-remote-bases=true
            resources:
              requests:
                cpu: 20m
                memory: 64Mi
- target:
    kind: ClusterRoleBinding
    name: source-manager-rolebinding
  patch: |-
    - op: replace
      path: /subjects
      value: [{kind: ServiceAccount, name: source-controller, namespace: $NS}]
- target:
    kind: ClusterRoleBinding
    name: kustomize-manager-rolebinding
  patch: |-
    - op: replace
      path: /subjects
      value: [{kind: ServiceAccount, name: kustomize-controller, namespace: $NS}]
- target:
    kind: ClusterRoleBinding
    name: kustomize-cluster-reconciler
  patch: |-
    - op: replace
      path: /subjects
      value: [{kind: ServiceAccount, name: kustomize-controller, namespace: $NS}]
YAML
  cat > "$work/namespace.yaml" <<YAML
apiVersion: v1
kind: Namespace
metadata:
  name: $NS
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: source-controller
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: kustomize-controller
YAML
  kc kustomize --load-restrictor=LoadRestrictionsNone "$work" > "$work/flux.yaml.tmp"
  mv "$work/flux.yaml.tmp" "$work/flux.yaml"
  echo "$work/flux.yaml"
}

up() {
  build_all
  bash "$root/hack/images.sh" flux
  # On the local cluster, its containerd gets the images unless it has them; another cluster
  # pulls them from REGISTRY (hack/images.sh pushes them there).
  local c ref sock have; sock=$cluster/node/run/containerd/containerd.sock
  if [ -S "$sock" ]; then
    have=$("$root/bin/k8s/ctr" --address "$sock" -n k8s.io images ls -q 2>/dev/null)
    for c in "${CONTROLLERS[@]}"; do
      ref=$(cat "$root/.cache/images/flux-$c.ref")
      grep -qxF "$ref" <<<"$have" || bash "$root/hack/images.sh" import "$root/.cache/images/flux-$c.tar"
    done
  fi
  local yaml; yaml=$(manifests)
  say "installing $yaml"
  kc apply --server-side --force-conflicts -f "$yaml" >/dev/null
  for c in "${CONTROLLERS[@]}"; do
    kc -n $NS rollout status "deployment/$c" --timeout=180s >&2
  done
  say "ready: source-controller and kustomize-controller $FLUX_VERSION in $NS"
}

down() {
  local yaml=$work/flux.yaml
  [ -f "$yaml" ] || yaml=$(manifests)
  # Their finalizers are removed by the controllers: the objects go while the controllers run.
  if kc get crd kustomizations.kustomize.toolkit.fluxcd.io >/dev/null 2>&1; then
    kc delete --all-namespaces --all --wait=true --timeout=120s kustomizations.kustomize.toolkit.fluxcd.io >/dev/null
  fi
  if kc get crd gitrepositories.source.toolkit.fluxcd.io >/dev/null 2>&1; then
    kc delete --all-namespaces --all --wait=true --timeout=120s gitrepositories.source.toolkit.fluxcd.io >/dev/null
  fi
  kc delete --ignore-not-found --wait=true -f "$yaml" >/dev/null
  say "uninstalled"
}

case "${1:-}" in
  --path) for c in "${CONTROLLERS[@]}"; do binary "$c"; done ;;
  "") build_all; for c in "${CONTROLLERS[@]}"; do binary "$c"; done ;;
  manifests) manifests ;;
  up) up ;;
  down) down ;;
  *) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
