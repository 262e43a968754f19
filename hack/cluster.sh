#!/usr/bin/env bash
# A real single-node Kubernetes for end-to-end tests, built from the Go module proxy and Debian's
# packages, with everything that has a network address inside a network namespace of its own.
#
#   hack/cluster.sh build    build what is missing (etcd, kube-*, kubectl, containerd, shim, ctr, pause)
#   hack/cluster.sh up       build what is missing, start, wait for the node; idempotent
#   hack/cluster.sh status   exit 0 only when every component runs and the node is Ready
#   hack/cluster.sh down     stop everything, delete the namespace, restore kernel tunables
#   hack/cluster.sh down --purge   also delete the cluster state (etcd, PKI, images in containerd)
#
#   export KUBECONFIG=$PWD/.cache/cluster/kubeconfig
#
# Layout: binaries in bin/k8s/ (the same tree and module workspace as hack/envtest.sh, whose
# build_kube and build_etcd this script reuses), build modules in .cache/k8s-build/, cluster state
# in .cache/cluster/ (CLUSTER_DIR overrides it).
#
#   host                                   netns sweep-k8s (created by up, deleted by down)
#   sweepk8s-h 10.243.0.1/30 <== veth ==>  sweepk8s-n 10.243.0.2/30: only tcp/6443 from the host
#   kubectl, the operator                  bridge sweepk8s0 10.244.0.1/24 = node IP, pod subnet
#   (kubeconfig: https://10.243.0.2:6443)  etcd, kube-apiserver, controller-manager, scheduler,
#                                          containerd + kubelet (in a private mount namespace)
#
# No default route in the namespace: a Pod's traffic to anything but the node and other Pods fails
# at once ("network unreachable"). The host's iptables, routes and net.* sysctls are not written;
# the only change on the host side is the veth end and its /30 route, gone with the namespace.
# The kubelet rewrites a few global kernel tunables (vm.overcommit_memory, kernel.panic, ...): up
# saves them, down puts them back. The Service "kubernetes" (10.245.0.1:443) is one DNAT rule in
# the namespace to the API server: no kube-proxy and no DNS (Pods get a resolver that answers
# nothing). NetworkPolicy objects are accepted and stored but not enforced.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "hack/cluster.sh: run as root" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
L=$(realpath -m "${CLUSTER_DIR:-$root/.cache/cluster}")
case "$L" in
  /|/root|/home|/tmp|/var|/usr|/usr/*|/etc|/etc/*|/run|/run/*|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*|/boot*|/bin*|/sbin*|/lib*|/opt|"$HOME"|"$root"|"$root/.cache")
    echo "refusing state dir $L" >&2; exit 1;;
esac
[ "$(awk -F/ '{print NF-1}' <<<"$L")" -ge 2 ] || { echo "refusing state dir $L (too close to /)" >&2; exit 1; }
# A state dir that exists must be one this script made (down --purge deletes it whole).
if [ -d "$L" ] && [ -n "$(ls -A "$L")" ] && [ ! -f "$L/.sweep-cluster" ]; then
  echo "refusing state dir $L: not empty and not made by hack/cluster.sh" >&2; exit 1
fi
BIN=$root/bin/k8s
WORK=$root/.cache/k8s-build
IMAGES=$root/.cache/images
export PATH=$BIN:/usr/local/go/bin:/usr/sbin:/usr/bin:/sbin:/bin

KUBE_VERSION=v1.37.2
ETCD_VERSION=v3.6.16
CONTAINERD_VERSION=v2.4.2
NS=sweep-k8s
HV=sweepk8s-h; NV=sweepk8s-n; BR=sweepk8s0
HOSTIP=10.243.0.1; NSIP=10.243.0.2
NODEIP=10.244.0.1; PODCIDR=10.244.0.0/24
SVCCIDR=10.245.0.0/24; SVCIP=10.245.0.1
NODE=sweep-node
CGROOT=sweep-k8s                           # kubelet cgroupRoot in every cgroup v1 hierarchy
PAUSE_REF=localhost/sweep/pause:v1         # explicit tag, pinned as the sandbox image
TUNABLES="vm/overcommit_memory vm/panic_on_oom kernel/panic kernel/panic_on_oops kernel/keys/root_maxkeys kernel/keys/root_maxbytes"
CP="etcd kube-apiserver kube-controller-manager kube-scheduler"
C=$L/conf; P=$L/pki; LOG=$L/logs; PIDS=$L/pids
KC=$L/kubeconfig                           # admin, for the host

T0=$(date +%s.%N)
ts() { awk -v t0="$T0" -v n="$(date +%s.%N)" -v m="$*" 'BEGIN{printf "[%6.1fs] %s\n", n-t0, m}'; }
pid_of() { cat "$PIDS/$1.pid" 2>/dev/null || true; }
# alive: the recorded PID is a live process (a zombie counts as gone) that is still our component
# (its command line names it and this state dir), so a stale PID file never makes us signal someone else's process.
alive() {
  local p; p=$(pid_of "$1"); [ -n "$p" ] || return 1
  kill -0 "$p" 2>/dev/null && [ "$(sed -n 's/^[0-9]* (.*) \(.\).*/\1/p' /proc/$p/stat 2>/dev/null)" != Z ] || return 1
  local cmd; cmd=$(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null) || return 1
  [[ "$cmd" == *"${1/#node/node.sh}"* && "$cmd" == *"$L/"* ]]
}
in_ns() { nsenter --net=/run/netns/$NS "$@"; }
kc() { kubectl --kubeconfig="$KC" "$@"; }
wait_for() { # wait_for DESC SECONDS CMD...
  local d=$1 n=$(($2 * 5)); shift 2
  until "$@" >/dev/null 2>&1; do
    n=$((n - 1)); [ $n -gt 0 ] || { echo "timed out waiting for $d (logs: ${LOG#$root/})" >&2; return 1; }
    sleep 0.2
  done
  ts "$d"
}

# ---------------------------------------------------------------- build
build_containerd() { # containerd, its runc shim and ctr: static, into bin/k8s like the rest
  local c need=0
  for c in containerd containerd-shim-runc-v2 ctr; do [ -x "$BIN/$c" ] || need=1; done
  [ $need = 1 ] || return 0
  local dir=$WORK/containerd
  mkdir -p "$dir"
  if [ ! -f "$dir/go.sum" ]; then
    (cd "$dir"
     printf 'module sweep.local/containerdbuild\n\ngo 1.26.0\n' > go.mod
     printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "github.com/containerd/containerd/v2/cmd/containerd"\n\t_ "github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2"\n\t_ "github.com/containerd/containerd/v2/cmd/ctr"\n)\n' > tools.go
     go get "github.com/containerd/containerd/v2@$CONTAINERD_VERSION" && go mod tidy)
  fi
  local v=github.com/containerd/containerd/v2/version
  for c in containerd containerd-shim-runc-v2 ctr; do
    [ -x "$BIN/$c" ] && continue
    ts "building $c $CONTAINERD_VERSION"
    (cd "$dir" && CGO_ENABLED=0 go build -trimpath -tags "no_btrfs no_devmapper" \
      -ldflags "-s -w -X $v.Version=$CONTAINERD_VERSION -X $v.Revision=modproxy" \
      -o "$BIN/$c" "github.com/containerd/containerd/v2/cmd/$c")
  done
}

build_pause() { # the sandbox image: a tiny static Go program, as a docker-archive
  [ -f "$IMAGES/pause.tar" ] && return
  mkdir -p "$IMAGES"
  (cd "$root"
   CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$root/bin/pause" ./hack/tools/pause
   go build -trimpath -o "$root/bin/mkimage" ./hack/tools/mkimage
   "$root/bin/mkimage" -base-binary "$root/bin/pause" -binary-path /pause -ref "$PAUSE_REF" -o "$IMAGES/pause.tar" >/dev/null)
  ts "built pause image $PAUSE_REF"
}

install_packages() {
  local p missing=()
  for p in runc containernetworking-plugins iptables openssl curl util-linux iproute2; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [ ${#missing[@]} = 0 ] && return
  ts "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build_all() {
  install_packages
  mkdir -p "$BIN"
  # one build at a time: kube-apiserver alone takes minutes on two cores
  (export KUBE_VERSION ETCD_VERSION; source "$root/hack/envtest.sh"
   build_etcd
   build_kube kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl)
  build_containerd
  build_pause
}

# ---------------------------------------------------------------- PKI and configs
pki() {
  mkdir -p "$P"; cd "$P"
  [ -f ca.crt ] || openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.crt -days 3650 -subj "/CN=sweep-k8s-ca" 2>/dev/null
  cert() { # NAME CN O EXTENSIONS
    [ -f "$1.crt" ] && return 0
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2${3:+/O=$3}" 2>/dev/null
    printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n%s\n' "$4" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" -days 3650 -extfile "$1.ext" 2>/dev/null
    rm -f "$1.csr" "$1.ext"
  }
  cert apiserver kube-apiserver "" "extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:$NODEIP,IP:$NSIP,IP:$SVCIP"
  cert admin sweep-admin system:masters extendedKeyUsage=clientAuth
  cert controller-manager system:kube-controller-manager "" extendedKeyUsage=clientAuth
  cert scheduler system:kube-scheduler "" extendedKeyUsage=clientAuth
  cert kubelet system:node:$NODE system:nodes extendedKeyUsage=clientAuth
  cert apiserver-kubelet-client kube-apiserver-kubelet-client system:masters extendedKeyUsage=clientAuth
  # P-256 keys throughout: RSA key generation is seconds of CPU on a cold start
  [ -f sa.key ] || { openssl ecparam -name prime256v1 -genkey -noout -out sa.key 2>/dev/null; openssl ec -in sa.key -pubout -out sa.pub 2>/dev/null; }
  local u f server
  for u in admin controller-manager scheduler kubelet; do
    f=$C/$u.kubeconfig; [ $u = admin ] && f=$KC
    [ -f "$f" ] && continue
    server=https://$NODEIP:6443; [ $u = admin ] && server=https://$NSIP:6443
    kubectl config set-cluster sweep-local --server=$server --certificate-authority=ca.crt --embed-certs --kubeconfig="$f" >/dev/null
    kubectl config set-credentials $u --client-certificate=$u.crt --client-key=$u.key --embed-certs --kubeconfig="$f" >/dev/null
    kubectl config set-context sweep-local --cluster=sweep-local --user=$u --kubeconfig="$f" >/dev/null
    kubectl config use-context sweep-local --kubeconfig="$f" >/dev/null
  done
  cd "$root"
}

configs() {
  mkdir -p "$C/cni"
  # bridge without isGateway (that would switch on global forwarding): the gateway address is the
  # node IP on the bridge itself, set up by up.
  cat > "$C/cni/10-sweep.conflist" <<EOF
{"cniVersion": "1.0.0", "name": "sweep", "plugins": [
  {"type": "bridge", "bridge": "$BR", "isGateway": false, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$PODCIDR", "gateway": "$NODEIP"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}}]}
EOF
  # Paths as seen inside the node's mount namespace, where /run, /var/lib and /var/log are this
  # state dir's node/{run,lib,log}.
  cat > "$C/containerd.toml" <<EOF
version = 3
root = "/var/lib/containerd"
state = "/run/containerd"
[grpc]
  address = "/run/containerd/containerd.sock"
[plugins.'io.containerd.cri.v1.images'.pinned_images]
  sandbox = '$PAUSE_REF'
[plugins.'io.containerd.cri.v1.runtime']
  netns_mounts_under_state_dir = true
  # No CAP_SYS_RESOURCE on this kind of machine: runc cannot lower oom_score_adj, and every
  # sandbox would fail with "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
  BinaryName = '/usr/sbin/runc'
  SystemdCgroup = false
[plugins.'io.containerd.cri.v1.runtime'.cni]
  bin_dirs = ['/usr/lib/cni']
  conf_dir = '$C/cni'
EOF
  # Nothing answers DNS on the node IP: lookups fail at once and never reach the host's resolver.
  printf 'nameserver %s\noptions timeout:1 attempts:1\n' $NODEIP > "$C/resolv.conf"
  cat > "$C/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /$CGROOT
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
address: $NODEIP
healthzBindAddress: 127.0.0.1
readOnlyPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $P/ca.crt}
authorization: {mode: Webhook}
failSwapOn: false
resolvConf: $C/resolv.conf
clusterDNS: [$NODEIP]
clusterDomain: cluster.local
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%", imagefs.available: "1%"}
serializeImagePulls: false
# Alpha in v1.37, where it is only a hint: containerd's event of a container's end makes the
# kubelet relist that Pod at once, instead of at its next relist (every second), which stays
# the source of truth. Each stage's end is seen 0.5-0.9 s sooner (docs/scale.md).
featureGates: {EventedPLEG: true}
EOF
}

# ---------------------------------------------------------------- host side
host_snapshot() { # DIR: the host's network state, compared by down
  local d=$1 t; mkdir -p "$d"
  ip -br link | awk '{sub(/@.*/, "", $1); print $1}' | sort > "$d/links"
  ip -br addr | sort > "$d/addrs"
  { ip -4 route show table all; ip -6 route show table all; ip -4 rule; ip -6 rule; } > "$d/routes"
  for t in iptables ip6tables iptables-legacy ip6tables-legacy; do
    { $t-save 2>/dev/null || true; } | sed -E '/^#/d; s/\[[0-9]+:[0-9]+\]/[-]/'
  done > "$d/firewall"
  { sysctl -a --pattern '^net\.' 2>/dev/null || true; } | sed '/nf_conntrack_count/d' | sort > "$d/net-sysctls"
  { sysctl -a --pattern '^(vm|kernel)\.' 2>/dev/null || true; } \
    | grep -vE '^kernel\.(ns_last_pid|random\.[a-z_]+|pty\.nr|tainted) ' | sort > "$d/kernel-sysctls"
}

# Up records the host as it found it in host-before before making the namespace: only then is it ours.
ns_ours() { [ -f "$L/host-before/links" ]; }

make_netns() {
  if [ -e /run/netns/$NS ] && ! ns_ours; then
    if [ -n "$(ip netns pids $NS 2>/dev/null)" ]; then
      echo "netns $NS was made from another checkout and has processes running in it (another" >&2
      echo "checkout's cluster): stop it with that checkout's hack/cluster.sh down. Refusing." >&2
      exit 1
    fi
    # A cluster whose processes all ended without a down (a machine's session ended with it up):
    # its namespace is all that is left of it, and it is in the way of ours.
    ip netns del $NS
    for _ in $(seq 50); do ip link show $HV >/dev/null 2>&1 || break; sleep 0.1; done
    ts "deleted netns $NS left by a cluster not taken down (no process ran in it)"
  fi
  if [ ! -e /run/netns/$NS ]; then
    ip link show $HV >/dev/null 2>&1 && { echo "host already has an interface $HV (not ours to remove); refusing" >&2; exit 1; }
    if ip -4 route show | grep -qE "^(10\.243\.0\.|10\.244\.0\.|10\.245\.0\.)"; then
      echo "host already routes 10.243.0.0/30, 10.244.0.0/24 or 10.245.0.0/24; refusing" >&2; exit 1
    fi
    rm -rf "$L/host-before" "$L/host-after" "$L/host-diff.txt"; host_snapshot "$L/host-before"
    # `ip netns add` makes /run/netns (a shared bind mount): remember what to undo
    if [ ! -d /run/netns ]; then echo absent > "$L/run-netns.state"
    elif ! mountpoint -q /run/netns; then echo not-a-mount > "$L/run-netns.state"; fi
    ip netns add $NS
  fi
  in_ns ip link set lo up
  if ! in_ns ip link show $BR >/dev/null 2>&1; then
    in_ns ip link add $BR type bridge
    in_ns ip addr add $NODEIP/24 dev $BR
    in_ns ip link set $BR up
  fi
  if ! ip link show $HV >/dev/null 2>&1; then
    ip link add $HV type veth peer name $NV netns $NS
    in_ns sysctl -qw net.ipv6.conf.$NV.disable_ipv6=1
    in_ns ip addr add $NSIP/30 dev $NV
    in_ns ip link set $NV up
    ip addr add $HOSTIP/30 dev $HV
    ip link set $HV up
  fi
  # Namespace-local: packets from Pods to anything but the node are routed (then fail at once,
  # there is no default route) instead of silently dropped. ip_forward stays 0.
  in_ns sysctl -qw net.ipv4.conf.$BR.forwarding=1
  # ICMP errors are rate-limited per peer (1/s): a Pod's second DNS query to the node IP, where
  # nothing listens, would wait for its timeout instead of failing at once. Namespace-local.
  in_ns sysctl -qw net.ipv4.icmp_ratelimit=0
  if ! in_ns iptables -S SWEEP-GUARD >/dev/null 2>&1; then
    # Pods: to each other only; anything routed off the bridge (e.g. to the host's veth end) is rejected.
    in_ns iptables -N SWEEP-GUARD
    in_ns iptables -A SWEEP-GUARD -i $BR -o $BR -j ACCEPT
    in_ns iptables -A SWEEP-GUARD -i $BR -j REJECT --reject-with icmp-net-unreachable
    in_ns iptables -A SWEEP-GUARD -j DROP
    in_ns iptables -A FORWARD -j SWEEP-GUARD
    # From the host: the API server only. Towards the host: replies only.
    in_ns iptables -N SWEEP-VETH-IN
    in_ns iptables -A SWEEP-VETH-IN -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
    in_ns iptables -A SWEEP-VETH-IN -s $HOSTIP -d $NSIP -p tcp --dport 6443 -j ACCEPT
    in_ns iptables -A SWEEP-VETH-IN -j DROP
    in_ns iptables -A INPUT -i $NV -j SWEEP-VETH-IN
    in_ns iptables -N SWEEP-VETH-OUT
    in_ns iptables -A SWEEP-VETH-OUT -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT
    in_ns iptables -A SWEEP-VETH-OUT -j REJECT --reject-with icmp-admin-prohibited
    in_ns iptables -A OUTPUT -o $NV -j SWEEP-VETH-OUT
    # Service "kubernetes" without kube-proxy: in-cluster clients (the manager) reach the API server.
    in_ns iptables -t nat -A PREROUTING -d $SVCIP/32 -p tcp --dport 443 -j DNAT --to-destination $NODEIP:6443
    in_ns iptables -t nat -A OUTPUT -d $SVCIP/32 -p tcp --dport 443 -j DNAT --to-destination $NODEIP:6443
    in_ns ip6tables -P FORWARD DROP
  fi
}

host_prep() {
  # The kubelet rewrites these global (not per-namespace) tunables: keep the originals for down.
  if [ ! -f "$L/tunables.saved" ]; then
    local k; for k in $TUNABLES; do echo "$k $(cat /proc/sys/$k)"; done > "$L/tunables.saved"
    if grep -qx 'vm/overcommit_memory 1' "$L/tunables.saved" && grep -qx 'kernel/panic 10' "$L/tunables.saved"; then
      echo "WARNING: vm.overcommit_memory=1 and kernel.panic=10 already: a kubelet changed them before" >&2
      echo "         (a cluster not taken down?); down will put back these values, not the machine's" >&2
    fi
  fi
  local d
  for d in /sys/fs/cgroup/*/; do
    [ "$(stat -f -c %T "$d")" = cgroupfs ] && mkdir -p "$d$CGROOT"
  done
  d=/sys/fs/cgroup/cpuset/$CGROOT   # a new v1 cpuset cgroup starts with no CPUs and no memory nodes
  if [ -d $d ]; then
    [ -n "$(cat $d/cpuset.cpus)" ] || cat /sys/fs/cgroup/cpuset/cpuset.cpus > $d/cpuset.cpus
    [ -n "$(cat $d/cpuset.mems)" ] || cat /sys/fs/cgroup/cpuset/cpuset.mems > $d/cpuset.mems
  fi
}

# ---------------------------------------------------------------- start
start_bg() { # NAME CMD...: in the namespace; nsenter execs, so the PID is the component's own
  local n=$1; shift
  alive $n && return 0
  setsid nohup nsenter --net=/run/netns/$NS "$@" > "$LOG/$n.log" 2>&1 < /dev/null &
  echo $! > "$PIDS/$n.pid"
}

start_control_plane() {
  start_bg etcd "$BIN/etcd" --name sweep --data-dir "$L/etcd" \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster sweep=http://127.0.0.1:2380 --listen-metrics-urls http://127.0.0.1:2381 \
    --quota-backend-bytes 2147483648 --unsafe-no-fsync
  wait_for "etcd healthy" 60 in_ns curl -sf http://127.0.0.1:2381/health
  # 0.0.0.0 inside the namespace: loopback, the node IP (components, Pods) and the veth (host).
  # --enable-aggregator-routing: webhooks and aggregated APIs behind a Service are called at the
  # Service's endpoints, as there is no kube-proxy for its cluster IP (hack/kueue.sh's webhooks).
  start_bg kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers=http://127.0.0.1:2379 \
    --bind-address=0.0.0.0 --advertise-address=$NODEIP --secure-port=6443 \
    --tls-cert-file="$P/apiserver.crt" --tls-private-key-file="$P/apiserver.key" --client-ca-file="$P/ca.crt" \
    --kubelet-client-certificate="$P/apiserver-kubelet-client.crt" --kubelet-client-key="$P/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types=InternalIP \
    --service-account-key-file="$P/sa.pub" --service-account-signing-key-file="$P/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-cluster-ip-range=$SVCCIDR \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --allow-privileged=true --cert-dir="$L/apiserver-certs" --enable-aggregator-routing=true
  wait_for "kube-apiserver ready (from the host, $NSIP:6443)" 120 kc get --raw /readyz
  start_bg kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig="$C/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$C/controller-manager.kubeconfig" --authorization-kubeconfig="$C/controller-manager.kubeconfig" \
    --bind-address=127.0.0.1 --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file="$P/sa.key" --root-ca-file="$P/ca.crt" \
    --cluster-signing-cert-file="$P/ca.crt" --cluster-signing-key-file="$P/ca.key" \
    --service-cluster-ip-range=$SVCCIDR
  start_bg kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig="$C/scheduler.kubeconfig" \
    --authentication-kubeconfig="$C/scheduler.kubeconfig" --authorization-kubeconfig="$C/scheduler.kubeconfig" \
    --bind-address=127.0.0.1 --leader-elect=false
}

# containerd and the kubelet run in a private mount namespace: their fixed paths (/run/containerd,
# /var/lib/kubelet, /var/log/pods, /var/lib/cni) are this state dir's, and every mount they make
# goes away with the namespace. `ip netns exec` is not used: it remounts /sys and hides the
# cgroup v1 tree; node.sh does the same sysfs switch but carries /sys/fs/cgroup over.
start_node() {
  alive node && alive containerd && alive kubelet && return 0
  mkdir -p "$L/node/run" "$L/node/lib" "$L/node/log"
  cat > "$L/node.sh" <<EOF
#!/bin/bash
set -u
export PATH=$PATH
mount --make-rprivate /
mkdir -p $L/node/.cg
mount --rbind /sys/fs/cgroup $L/node/.cg
umount -l /sys
mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
mount --rbind $L/node/.cg /sys/fs/cgroup
umount -l $L/node/.cg
mount --bind $L/node/run /run
mount --bind $L/node/lib /var/lib
mount --bind $L/node/log /var/log
mkdir -p /run/containerd
containerd -c $C/containerd.toml > $LOG/containerd.log 2>&1 &
echo \$! > $PIDS/containerd.pid
for i in \$(seq 150); do ctr --address /run/containerd/containerd.sock version >/dev/null 2>&1 && break; sleep 0.2; done
ctr --address /run/containerd/containerd.sock -n k8s.io images import --local $IMAGES/pause.tar >> $LOG/node.log 2>&1 \
  || ctr --address /run/containerd/containerd.sock -n k8s.io images import $IMAGES/pause.tar >> $LOG/node.log 2>&1
kubelet --config=$C/kubelet.yaml --kubeconfig=$C/kubelet.kubeconfig \
  --hostname-override=$NODE --node-ip=$NODEIP --v=1 > $LOG/kubelet.log 2>&1 &
echo \$! > $PIDS/kubelet.pid
wait
EOF
  chmod +x "$L/node.sh"
  setsid nohup nsenter --net=/run/netns/$NS unshare --mount --propagation private "$L/node.sh" > "$LOG/node.log" 2>&1 < /dev/null &
  echo $! > "$PIDS/node.pid"
}

node_ready() { # Ready, with a heartbeat from this start (etcd may hold a stale Ready)
  local r; r=$(kc get node $NODE -o jsonpath='{range .status.conditions[?(@.type=="Ready")]}{.status} {.lastHeartbeatTime}{end}' 2>/dev/null) || return 1
  [ "${r%% *}" = True ] && [[ ! "${r#* }" < "$1" ]]
}

all_alive() { local n; for n in $CP node containerd kubelet; do alive $n || return 1; done; }
any_alive() { local n; for n in $CP node containerd kubelet; do alive $n && return 0; done; return 1; }

cmd_up() {
  if [ -e /run/netns/$NS ] && all_alive; then
    echo "cluster already running (state ${L#$root/}); KUBECONFIG=$KC"
    return 0
  fi
  if any_alive; then ts "partly running: stopping first"; cmd_down; T0=$(date +%s.%N); fi
  build_all
  ts "binaries and pause image present"
  mkdir -p "$L" "$C" "$LOG" "$PIDS"; touch "$L/.sweep-cluster"
  local since; since=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  pki; configs
  make_netns; host_prep
  ts "netns $NS, PKI, configs ready"
  start_control_plane
  start_node
  wait_for "containerd up" 60 test -S "$L/node/run/containerd/containerd.sock"
  wait_for "node $NODE Ready" 180 node_ready "$since"
  wait_for "default ServiceAccount" 60 kc -n default get serviceaccount default
  kc get nodes -o wide
  echo "export KUBECONFIG=$KC"
  ts "up"
}

cmd_status() {
  local n ok=0
  for n in $CP node containerd kubelet; do
    if alive $n; then printf '%-24s running (pid %s)\n' $n "$(pid_of $n)"; else printf '%-24s not running\n' $n; ok=1; fi
  done
  [ -e /run/netns/$NS ] && echo "netns $NS present" || { echo "netns $NS absent"; ok=1; }
  if [ $ok = 0 ] && [ -f "$KC" ] && kc get --raw /readyz >/dev/null 2>&1; then
    echo "api server ready at https://$NSIP:6443 (KUBECONFIG=$KC)"
    kc get node $NODE --no-headers 2>/dev/null | grep -qw Ready && echo "node $NODE Ready" || { echo "node $NODE not Ready"; ok=1; }
  else
    ok=1
  fi
  [ $ok = 0 ] && echo "cluster running" || echo "cluster not running"
  return $ok
}

# ---------------------------------------------------------------- stop
stop() { # NAME SECONDS
  local n=$1 t=${2:-15} p i
  p=$(pid_of $n); [ -n "$p" ] || return 0
  if alive $n; then
    kill -TERM "$p" 2>/dev/null || true
    for i in $(seq $((t * 10))); do alive $n || break; sleep 0.1; done
    alive $n && { echo "$n did not stop in ${t}s: SIGKILL"; kill -KILL "$p" 2>/dev/null || true; }
  fi
  rm -f "$PIDS/$n.pid"
  ts "stopped $n"
}

cmd_down() {
  [ -d "$L" ] || { echo "nothing to stop (${L#$root/} absent)"; return 0; }
  # The namespace and the kubelet's cgroups have fixed names: another checkout's are not ours.
  if [ -e /run/netns/$NS ] && ! ns_ours; then
    echo "netns $NS was not made from ${L#$root/}: leaving it, and the cgroups $CGROOT, alone"
    return 0
  fi
  mkdir -p "$PIDS"
  stop kubelet 20
  # every container process left in the kubelet's cgroup subtree
  local f p
  for f in $(find /sys/fs/cgroup/pids/$CGROOT -name cgroup.procs 2>/dev/null); do
    for p in $(cat "$f"); do kill -KILL "$p" 2>/dev/null || true; done
  done
  stop containerd 20
  # shims outlive containerd by design: ours are the processes in the namespace running our shim
  # (compared by resolved path: bin/k8s may be a link, and /proc/PID/exe is always resolved)
  if [ -e /run/netns/$NS ]; then
    local shim; shim=$(readlink -f "$BIN/containerd-shim-runc-v2")
    for p in $(ip netns pids $NS 2>/dev/null); do
      [ "$(readlink /proc/$p/exe 2>/dev/null)" = "$shim" ] && kill -KILL "$p" 2>/dev/null || true
    done
  fi
  stop node 10
  local n; for n in kube-scheduler kube-controller-manager kube-apiserver etcd; do stop $n 20; done
  sleep 0.3
  for f in /sys/fs/cgroup/*/; do
    [ -d "$f$CGROOT" ] && find "$f$CGROOT" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
  if [ -e /run/netns/$NS ]; then
    local left; left=$(ip netns pids $NS 2>/dev/null | tr '\n' ' ')
    [ -n "$left" ] && echo "WARNING: processes still in netns $NS: $left (not killed)"
    ip netns del $NS && ts "deleted netns $NS (bridge, veth pair, Pod veths, its iptables rules)"
  fi
  for p in $(seq 50); do ip link show $HV >/dev/null 2>&1 || break; sleep 0.1; done
  ip link show $HV >/dev/null 2>&1 && echo "WARNING: host interface $HV still present"
  if [ -f "$L/run-netns.state" ] && [ -d /run/netns ] && [ -z "$(ls -A /run/netns)" ]; then
    mountpoint -q /run/netns && umount /run/netns
    [ "$(cat "$L/run-netns.state")" = absent ] && rmdir /run/netns
    rm -f "$L/run-netns.state"
  fi
  if [ -f "$L/tunables.saved" ]; then
    local k v
    while read -r k v; do
      [ "$(cat /proc/sys/$k)" = "$v" ] || { echo "restoring $k=$v (kubelet set $(cat /proc/sys/$k))"; echo "$v" > /proc/sys/$k; }
    done < "$L/tunables.saved"
    rm -f "$L/tunables.saved"
  fi
  # /run of the node is ephemeral by definition; only when nothing is mounted below the state dir
  if ! awk '{print $5}' /proc/self/mountinfo | grep -q "^$L/"; then
    rm -rf "$L/node/run" "$L/node/lib/cni"
  fi
  if [ -d "$L/host-before" ] && [ ! -e /run/netns/$NS ]; then
    rm -rf "$L/host-after"; host_snapshot "$L/host-after"
    if diff -r "$L/host-before" "$L/host-after" > "$L/host-diff.txt"; then
      echo "host check: links, addresses, routes, iptables (nft and legacy), net.*, vm.* and kernel.* sysctls as before up"
      rm -rf "$L/host-before" "$L/host-after" "$L/host-diff.txt"
    else
      echo "host check: DIFFERENCES (kept in $L/host-diff.txt):"; sed 's/^/  /' "$L/host-diff.txt"
    fi
  fi
  ls -d /sys/fs/cgroup/*/$CGROOT 2>/dev/null | sed 's/^/WARNING: cgroup left: /' || true
  if [ "${1:-}" = --purge ]; then
    awk '{print $5}' /proc/self/mountinfo | grep -q "^$L/" && { echo "mounts under $L: not purging" >&2; return 1; }
    rm -rf "$L" && ts "purged ${L#$root/}"
  fi
  ts "down"
}

case "${1:-}" in
  build) build_all; ts "build done" ;;
  up) cmd_up ;;
  down) shift; cmd_down "$@" ;;
  status) cmd_status ;;
  *) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
