#!/usr/bin/env bash
# SeaweedFS (Apache-2.0), the S3-compatible server the e2e suite stores records in: `weed`
# built once from the Go module proxy into .cache/tools/weed-<version> (one binary per version,
# so a bump rebuilds and an old binary is never used), run in the local cluster.
#
#   hack/seaweedfs.sh            build when missing, print the binary's path
#   hack/seaweedfs.sh --path     print the path only, built or not
#   hack/seaweedfs.sh deploy     the server in the namespace sweep-s3 of the current cluster (its
#                                image from `hack/images.sh seaweedfs`, imported), the bucket, and
#                                the manager's credentials (Secret sweep-system/sweep-operator-store);
#                                idempotent: credentials and objects are kept
#   hack/seaweedfs.sh url        the store URL for Pods (the manager), from the ConfigMap
#                                sweep-s3/seaweedfs-store that deploy writes
#
# `go install .../weed@VERSION` is refused (seaweedfs' go.mod has a replace directive), so it is
# built in a throwaway module (.cache/k8s-build/seaweedfs) that requires it and repeats that
# replace, as hack/envtest.sh builds kubernetes. The server's objects live on the host in
# .cache/cluster/seaweedfs (CLUSTER_DIR), so a restarted server has them; down --purge drops them.
#   KUBECONFIG   the cluster (default: the local cluster of hack/cluster.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH=/usr/local/go/bin:$PATH
SEAWEEDFS_VERSION=${SEAWEEDFS_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}
mod=github.com/seaweedfs/seaweedfs
bin=$root/.cache/tools/weed-$SEAWEEDFS_VERSION
cluster=$(realpath -m "${CLUSTER_DIR:-$root/.cache/cluster}")
export KUBECONFIG=${KUBECONFIG:-$cluster/kubeconfig}
kubectl=${KUBECTL:-$root/bin/k8s/kubectl}
command -v "$kubectl" >/dev/null || kubectl=kubectl
kc() { "$kubectl" "$@"; }
NS=sweep-s3
BUCKET=sweep-e2e
REGION=us-east-1
S3_PORT=8333
UID_GID=65532                 # the server's user (the manifest's runAsUser), owner of its data
MANAGER_NS=sweep-system       # where the manager's Secret sweep-operator-store goes

build() {
  [ -x "$bin" ] && return
  local dir=$root/.cache/k8s-build/seaweedfs t0
  t0=$(date +%s)
  echo "building weed $SEAWEEDFS_VERSION (once, into ${bin#$root/})" >&2
  mkdir -p "$dir" "$root/.cache/tools"
  if [ ! -f "$dir/go.sum" ] || ! grep -q "$mod $SEAWEEDFS_VERSION" "$dir/go.mod"; then
    (cd "$dir"
     rm -f go.mod go.sum
     printf 'module sweep.local/weedbuild\n\ngo 1.26.0\n' > go.mod
     printf '//go:build tools\n\npackage tools\n\nimport _ "%s/weed"\n' "$mod" > tools.go
     local gomod r
     gomod=$(go mod download -json "$mod@$SEAWEEDFS_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
     # its replace directives, one line each (`replace a => b v`), carried over as they are
     while read -r r; do go mod edit -replace="$r"; done \
       < <(awk '/^replace [^(]/ {sub(/^replace /, ""); gsub(/ => /, "="); gsub(/ /, "@"); print}' "$gomod")
     go mod edit -require="$mod@$SEAWEEDFS_VERSION"
     go mod tidy)
  fi
  # A name of its own while building, so a half-built binary never takes the versioned one.
  # Static (CGO off), as seaweedfs' own container images are; -p 2 for this kind of machine.
  (cd "$dir" && CGO_ENABLED=0 go build -p "${BUILD_PARALLELISM:-2}" -trimpath \
    -ldflags "-s -w -X $mod/weed/util/version.COMMIT=${SEAWEEDFS_VERSION##*-}" \
    -o "$bin.tmp" "$mod/weed")
  mv "$bin.tmp" "$bin"
  echo "built weed in $(( $(date +%s) - t0 ))s" >&2
}

# secret_value NS NAME KEY: a key of a Secret, decoded; empty when there is none.
secret_value() { { kc -n "$1" get secret "$2" -o "jsonpath={.data.$3}" 2>/dev/null || true; } | base64 -d; }

deploy() {
  local ref
  ref=$(cat "$root/.cache/images/seaweedfs.ref" 2>/dev/null) || { echo "no seaweedfs image: run hack/images.sh seaweedfs" >&2; exit 1; }
  # On the local cluster, its containerd gets the image unless it has it (hack/stack.sh imports
  # every image first); another cluster pulls it from REGISTRY (hack/images.sh pushes it there).
  local sock=$cluster/node/run/containerd/containerd.sock
  if [ -S "$sock" ]; then
    local have; have=$("$root/bin/k8s/ctr" --address "$sock" -n k8s.io images ls -q 2>/dev/null)
    grep -qxF "$ref" <<<"$have" || hack_images import "$root/.cache/images/seaweedfs.tar"
  fi
  local data=$cluster/seaweedfs
  install -d -o $UID_GID -g $UID_GID -m 0750 "$data"
  kc get namespace $NS >/dev/null 2>&1 || kc create namespace $NS >/dev/null
  # Credentials: made once, kept in the cluster (the Secret seaweedfs-s3), never on the host's disk.
  local key secret
  key=$(secret_value $NS seaweedfs-s3 AWS_ACCESS_KEY_ID)
  secret=$(secret_value $NS seaweedfs-s3 AWS_SECRET_ACCESS_KEY)
  if [ -z "$key" ] || [ -z "$secret" ]; then
    key=SWEEP$(openssl rand -hex 8 | tr a-f A-F)
    secret=$(openssl rand -hex 20)
  fi
  local identities
  identities=$(printf '{"identities": [{"name": "sweep-operator", "credentials": [{"accessKey": "%s", "secretKey": "%s"}], "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}' "$key" "$secret")
  kc -n $NS create secret generic seaweedfs-s3 --from-literal=s3.json="$identities" \
    --from-literal=AWS_ACCESS_KEY_ID="$key" --from-literal=AWS_SECRET_ACCESS_KEY="$secret" \
    --dry-run=client -o yaml | kc apply --server-side -f - >/dev/null
  sed -e "s|@IMAGE@|$ref|" -e "s|@DATA_DIR@|$data|" "$root/hack/manifests/seaweedfs.yaml" | kc apply --server-side -f - >/dev/null
  kc -n $NS rollout status deployment/seaweedfs --timeout=180s
  # The S3 port answers before the filer has a master: the bucket is made once that is ready.
  local i buckets=
  for i in $(seq 60); do
    buckets=$(weed_shell s3.bucket.list || true)
    grep -qw "$BUCKET" <<<"$buckets" && break
    weed_shell "s3.bucket.create -name $BUCKET" >/dev/null || true
    sleep 1
  done
  grep -qw "$BUCKET" <<<"$buckets" || { echo "bucket $BUCKET not made: $buckets" >&2; exit 1; }
  local ip url
  ip=$(kc -n $NS get pods -l app.kubernetes.io/name=seaweedfs -o jsonpath='{.items[0].status.hostIP}')
  url="s3://$BUCKET?endpoint=http://$ip:$S3_PORT&use_path_style=true&region=$REGION"
  kc -n $NS create configmap seaweedfs-store --from-literal=url="$url" --from-literal=bucket="$BUCKET" \
    --dry-run=client -o yaml | kc apply --server-side -f - >/dev/null
  # The manager's envFrom Secret, read when its container starts: hack/stack.sh deploys this
  # first; a manager already running without it (a cluster the demo made) is restarted.
  kc get namespace $MANAGER_NS >/dev/null 2>&1 || kc create namespace $MANAGER_NS >/dev/null
  local had; had=$(secret_value $MANAGER_NS sweep-operator-store AWS_ACCESS_KEY_ID)
  kc -n $MANAGER_NS create secret generic sweep-operator-store --from-literal=AWS_ACCESS_KEY_ID="$key" \
    --from-literal=AWS_SECRET_ACCESS_KEY="$secret" --from-literal=AWS_REGION=$REGION \
    --dry-run=client -o yaml | kc apply --server-side -f - >/dev/null
  if [ "$had" != "$key" ] && kc -n $MANAGER_NS get deployment sweep-operator-manager >/dev/null 2>&1; then
    kc -n $MANAGER_NS rollout restart deployment/sweep-operator-manager >/dev/null
    kc -n $MANAGER_NS rollout status deployment/sweep-operator-manager --timeout=120s
  fi
  echo "seaweedfs: $url (objects in ${data#$root/})"
}

# weed_shell COMMAND: one `weed shell` command in the server's Pod, against its master.
weed_shell() { echo "$1" | kc -n $NS exec -i deployment/seaweedfs -- /weed shell -master=127.0.0.1:9333 2>&1; }

hack_images() { bash "$root/hack/images.sh" "$@"; }

case "${1:-}" in
  --path) echo "$bin" ;;
  "") build; echo "$bin" ;;
  deploy) deploy ;;
  url) kc -n $NS get configmap seaweedfs-store -o jsonpath='{.data.url}'; echo ;;
  *) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
