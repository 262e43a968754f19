#!/usr/bin/env bash
# Smoke checks for the cluster of hack/cluster.sh, from the host, with the python-base image of
# hack/images.sh (built and imported here if missing):
#   - a Pod runs python3 -c, pytest --version and git to Succeeded; kubectl logs; termination message
#   - a Pod with a native sidecar (init container, restartPolicy: Always) finishes; the sidecar's
#     termination message (written on SIGTERM, as the collector does) is readable
#   - a Pod's egress fails: the host's end of the veth and an address beyond it (no default
#     route: "network unreachable" inside the namespace; nothing leaves it), DNS answers nothing
#   - a Pod reaches the API server through the Service "kubernetes" (what an in-cluster manager uses)
#   - a NetworkPolicy object is accepted
#   - with SMOKE_TASKS=1: hook and sample task images built and imported, each task's oracle graded to 1
# Ends with "N passed, M failed"; exits non-zero if anything failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export KUBECONFIG=${KUBECONFIG:-$root/.cache/cluster/kubeconfig}
K="$root/bin/k8s/kubectl"
NS=sweep-smoke
HOSTVETH=10.243.0.1
OUTSIDE=192.0.2.1   # TEST-NET-1: no route for it in the namespace, the packet never leaves it
pass=0; fail=0
now() { date +%s.%N; }
el() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1fs", b-a}'; }
ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
check() { # check DESC COND-CMD...
  local d=$1; shift
  if "$@"; then ok "$d"; else bad "$d"; fi
}

bash "$root/hack/cluster.sh" status >/dev/null || { echo "cluster not running: hack/cluster.sh up" >&2; exit 1; }
[ -f "$root/.cache/images/python-base.ref" ] || bash "$root/hack/images.sh" python-base
PY=$(cat "$root/.cache/images/python-base.ref")
t=$(now); bash "$root/hack/images.sh" import "$root/.cache/images/python-base.tar" 2>/dev/null
echo "python-base $PY imported in $(el $t)"

$K delete namespace $NS --ignore-not-found --wait=true >/dev/null
$K create namespace $NS >/dev/null
k() { $K -n $NS "$@"; }
wait_phase() { k wait --for=jsonpath='{.status.phase}'="$2" pod/"$1" --timeout="${3:-120}s" >/dev/null 2>&1; }

# 1. python, pytest, git; logs; termination message
t=$(now)
k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: py}
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  containers:
  - name: py
    image: $PY
    imagePullPolicy: IfNotPresent
    command: [sh, -c]
    args:
    - |
      set -e
      python3 -c 'import sys; print("python", sys.version.split()[0], 6*7)'
      pytest --version
      git --version
      mkdir /tmp/r && cd /tmp/r && git init -q && printf 'def test_a():\n    assert 6*7 == 42\n' > test_a.py
      git add . && git commit -qm base && git tag baseline && python3 -m pytest -q
      printf 'answer=42' > /dev/termination-log
EOF
if wait_phase py Succeeded; then ok "python Pod Succeeded in $(el $t)"; else bad "python Pod: $(k get pod py -o jsonpath='{.status.phase}')"; fi
logs=$(k logs py 2>&1); echo "$logs" | sed 's/^/    /'
check "kubectl logs shows python and pytest output" grep -q "python 3.*42" <<<"$logs"
grep -q "1 passed" <<<"$logs" && grep -qi "pytest [0-9]" <<<"$logs" && ok "pytest --version and a pytest run in the Pod" || bad "pytest output missing"
msg=$(k get pod py -o jsonpath='{.status.containerStatuses[0].state.terminated.message}')
check "termination message readable ($msg)" test "$msg" = "answer=42"

# 2. native sidecar: the main container finishes, the sidecar is stopped and reports on SIGTERM
t=$(now)
k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: sidecar}
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  terminationGracePeriodSeconds: 10
  initContainers:
  - name: collector
    image: $PY
    imagePullPolicy: IfNotPresent
    restartPolicy: Always
    command: [python3, -u, -c]
    args:
    - |
      import signal, sys, time, os
      def stop(*_):
          done = os.path.exists('/sweep/run/done')
          open('/dev/termination-log', 'w').write('{"collected": %s}' % ('true' if done else 'false'))
          print('collector: SIGTERM, done=%s' % done); sys.exit(0)
      signal.signal(signal.SIGTERM, stop)
      print('collector: started')
      while True: time.sleep(0.2)
    volumeMounts: [{name: run, mountPath: /sweep/run}]
  containers:
  - name: main
    image: $PY
    imagePullPolicy: IfNotPresent
    command: [sh, -c, 'sleep 1; echo main: work done; touch /sweep/run/done']
    volumeMounts: [{name: run, mountPath: /sweep/run}]
  volumes: [{name: run, emptyDir: {}}]
EOF
if wait_phase sidecar Succeeded; then ok "native sidecar Pod Succeeded in $(el $t)"; else bad "native sidecar Pod: $(k get pod sidecar -o jsonpath='{.status.phase}')"; fi
smsg=$(k get pod sidecar -o jsonpath='{.status.initContainerStatuses[0].state.terminated.message}')
sexit=$(k get pod sidecar -o jsonpath='{.status.initContainerStatuses[0].state.terminated.exitCode}')
check "sidecar termination message readable ($smsg, exit $sexit)" test "$smsg" = '{"collected": true}'
slogs=$(k logs sidecar -c collector 2>&1 | tr '\n' '|'); mlogs=$(k logs sidecar -c main 2>&1)
echo "    collector logs: $slogs"; echo "    main logs: $mlogs"
check "kubectl logs of sidecar and main" grep -q "SIGTERM, done=True" <<<"$slogs"

# 3. egress fails; 4. the API server through the Service "kubernetes"
t=$(now)
k create serviceaccount smoke >/dev/null
k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: net}
spec:
  restartPolicy: Never
  serviceAccountName: smoke
  containers:
  - name: t
    image: $PY
    imagePullPolicy: IfNotPresent
    command: [python3, -c]
    args:
    - |
      import json, os, socket, ssl, time, urllib.request
      for host, port in [("$HOSTVETH", 9), ("$HOSTVETH", 22), ("$OUTSIDE", 80)]:
          s = socket.socket(); s.settimeout(5); t = time.time()
          try:
              s.connect((host, port)); print("EGRESS-OPEN", host, port)
          except OSError as e:
              print("egress %s:%d blocked after %.2fs: %s" % (host, port, time.time() - t, e))
      t = time.time()
      try:
          socket.getaddrinfo("example.com", 443); print("DNS-OPEN")
      except OSError as e:
          print("dns lookup failed after %.2fs: %s" % (time.time() - t, e))
      d = "/var/run/secrets/kubernetes.io/serviceaccount/"
      url = "https://%s:%s/version" % (os.environ["KUBERNETES_SERVICE_HOST"], os.environ["KUBERNETES_SERVICE_PORT"])
      req = urllib.request.Request(url, headers={"Authorization": "Bearer " + open(d + "token").read()})
      v = json.load(urllib.request.urlopen(req, context=ssl.create_default_context(cafile=d + "ca.crt"), timeout=5))
      print("in-cluster API", url, v["gitVersion"])
EOF
if wait_phase net Succeeded 60; then ok "network Pod Succeeded in $(el $t)"; else bad "network Pod: $(k get pod net -o jsonpath='{.status.phase}')"; fi
nlogs=$(k logs net 2>&1); echo "$nlogs" | sed 's/^/    /'
check "no egress to the host's veth end or beyond" test "$(grep -c 'blocked after' <<<"$nlogs")" = 3 -a "$(grep -c EGRESS-OPEN <<<"$nlogs")" = 0
check "DNS answers nothing" grep -q "dns lookup failed" <<<"$nlogs"
check "Pod reaches the API server via Service kubernetes" grep -q "in-cluster API https://10.245.0.1:443/version v1.37.2" <<<"$nlogs"

# 5. NetworkPolicy objects are accepted (stored; not enforced by the bridge plugin)
if k apply -f - >/dev/null 2>&1 <<EOF
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: no-network}
spec:
  podSelector: {matchLabels: {eval.sweep.dev/stage: agent}}
  policyTypes: [Egress]
  egress: []
EOF
then ok "NetworkPolicy accepted"; else bad "NetworkPolicy rejected"; fi

# 6. optional (SMOKE_TASKS=1): the sample tasks' verifier images grade their own oracle to 1 with
#    the real sweep-hook, installed by its init container as trial Pods do
if [ -n "${SMOKE_TASKS:-}" ]; then
  bash "$root/hack/images.sh" hook >/dev/null 2>&1 && bash "$root/hack/images.sh" catalogue "$root/tasks" >/dev/null 2>&1 \
    && bash "$root/hack/images.sh" import >/dev/null 2>&1 || bad "building or importing the hook and task images"
  HOOK=$(cat "$root/.cache/images/sweep-hook.ref")
  for ref in "$root"/.cache/images/tasks/*/verifier.ref; do
    task=$(basename "$(dirname "$ref")"); t=$(now)
    # A task graded by its own tests/test.sh has no bundle for sweep-hook's grader.
    [ -f "$root/tasks/$task/tests/bundle.json" ] || continue
    k apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: oracle-$task}
spec:
  restartPolicy: Never
  automountServiceAccountToken: false
  initContainers:
  - {name: sweep-install, image: $HOOK, imagePullPolicy: IfNotPresent, command: [/sweep-hook, install, /sweep/bin],
     volumeMounts: [{name: bin, mountPath: /sweep/bin}]}
  containers:
  - name: verifier
    image: $(cat "$ref")
    imagePullPolicy: IfNotPresent
    command: [sh, -c, '/sweep/bin/sweep-hook grade swesweep /tests -oracle -out /tmp/out >/dev/null 2>&1; cat /tmp/out/reward.json']
    volumeMounts: [{name: bin, mountPath: /sweep/bin}]
  volumes: [{name: bin, emptyDir: {}}]
YAML
    wait_phase oracle-$task Succeeded 180
    r=$(k logs oracle-$task -c verifier 2>&1)
    check "task $task: oracle graded in the cluster in $(el $t): $r" grep -q '"reward":1[,}]' <<<"$r"
  done
fi

t=$(now); $K delete namespace $NS --wait=true >/dev/null; echo "namespace deleted in $(el $t)"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
