#!/usr/bin/env bash
# Container images without Docker: go-containerregistry (hack/tools/mkimage) assembles them from
# static binaries or from a Debian rootfs made by debootstrap.
#
#   hack/images.sh hook                    sweep-hook image from ./cmd/sweep-hook (HOOK_BIN=FILE: any static binary)
#   hack/images.sh manager                 manager image from ./cmd/manager (MANAGER_BIN=FILE likewise)
#   hack/images.sh python-base             Debian bookworm minbase + python3, python3-pytest, git
#   hack/images.sh seaweedfs               the e2e suite's S3 server, weed of hack/seaweedfs.sh (WEED_BIN=FILE likewise)
#   hack/images.sh kueue                   Kueue's manager, the kueue binary of hack/kueue.sh (KUEUE_BIN=FILE likewise)
#   hack/images.sh flux                    Flux's source-controller and kustomize-controller, binaries of hack/flux.sh
#   hack/images.sh task-images TASKDIR     agent + verifier images of one task directory
#   hack/images.sh task-images-from NAME REPO_DIR TESTS_DIR WORKDIR
#   hack/images.sh catalogue TASKS-DIR...  every task, under the references `sweep tasks images` gives
#   hack/images.sh import [TAR...]         ctr import into the local cluster (default: every image built)
#   hack/images.sh list                    references of the images built so far
#
# Without REGISTRY, images are docker-archive tarballs under .cache/images/ named
# localhost/sweep/<name>:c-<config digest>, and `import` loads them into the cluster started by
# hack/cluster.sh. With REGISTRY=host[:port]/path each is also pushed there with the same tag
# (credentials from ~/.docker/config.json; REGISTRY_INSECURE=1 for a plain-HTTP registry). Each built reference is
# recorded in .cache/images/<name>.ref (tasks: .cache/images/tasks/<task>/{agent,verifier}.ref).
# Tags are content-derived, so Pods can use imagePullPolicy: IfNotPresent.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=$root/.cache/images
bin=$root/bin
prefix=${REGISTRY:-localhost/sweep}
prefix=${prefix%/}
mkdir -p "$cache" "$bin"
export PATH=/usr/local/go/bin:$PATH:/usr/sbin:/sbin

T0=$(date +%s.%N)
say() { awk -v t0="$T0" -v n="$(date +%s.%N)" -v m="$*" 'BEGIN{printf "[images %5.1fs] %s\n", n-t0, m}' >&2; }

mkimage() {
  local exe=$bin/mkimage
  if [ ! -x "$exe" ] || [ -n "$(find "$root/hack/tools/mkimage" -newer "$exe" -name '*.go')" ]; then
    (cd "$root" && go build -trimpath -o "$exe" ./hack/tools/mkimage)
  fi
  "$exe" "$@"
}

# emit NAME OUTTAR REF-FILE mkimage-args...: writes OUTTAR as localhost/sweep/NAME:c-<digest>;
# with REGISTRY set, also pushes the same image (same content-derived tag) as $REGISTRY/NAME.
# EMIT_REF (or TASK_AGENT_REF / TASK_VERIFIER_REF for task images) gives an explicit reference.
emit() {
  local name=$1 out=$2 reffile=$3; shift 3
  local ref want=${EMIT_REF:-}
  ref=$(mkimage "$@" -ref "${want:-localhost/sweep/$name:auto}" -o "$out" -ref-file "$reffile")
  say "$ref  -> ${out#$root/}"
  if [ -n "${REGISTRY:-}" ]; then
    local flags=(); [ -n "${REGISTRY_INSECURE:-}" ] && flags=(-insecure)
    [ -n "$want" ] && case "$want" in "$prefix"/*) ;; *) want=$prefix/${want##*/};; esac
    ref=$(mkimage -base-image "$out" -ref "${want:-$prefix/$name:auto}" -push "${flags[@]}" -ref-file "$reffile")
    say "$ref  (pushed)"
  fi
}

static_binary() { # static_binary NAME PKG OVERRIDE -> path of a static binary
  local name=$1 pkg=$2 override=$3
  if [ -n "$override" ]; then
    [ -x "$override" ] || { echo "$override: not an executable" >&2; exit 1; }
    echo "$override"; return
  fi
  [ -d "$root/$pkg" ] || { echo "$pkg does not exist yet: set HOOK_BIN or MANAGER_BIN to another static binary" >&2; exit 1; }
  # the same flags as `make build`, so both share the build cache
  (cd "$root" && CGO_ENABLED=0 go build -ldflags "-s -w" -o "$bin/$name" "./$pkg")
  echo "$bin/$name"
}

image_hook() {
  local exe; exe=$(static_binary sweep-hook cmd/sweep-hook "${HOOK_BIN:-}")
  # The collector runs `/sweep-hook ...`, and in its postStart hook copies it into /sweep/bin.
  emit sweep-hook "$cache/sweep-hook.tar" "$cache/sweep-hook.ref" \
    -base-binary "$exe" -binary-path /sweep-hook -entrypoint '["/sweep-hook"]'
}

image_manager() {
  local exe; exe=$(static_binary manager cmd/manager "${MANAGER_BIN:-}")
  local extra=()
  # CA roots for artifact buckets (S3/GCS/Azure) over TLS
  if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    local d; d=$(mktemp -d); mkdir -p "$d/certs"; cp /etc/ssl/certs/ca-certificates.crt "$d/certs/"
    extra=(-layer "$d/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt")
  fi
  emit manager "$cache/manager.tar" "$cache/manager.ref" \
    -base-binary "$exe" -binary-path /manager "${extra[@]}" -entrypoint '["/manager"]' -user 65532:65532
  [ -n "${d:-}" ] && rm -rf "$d"
}

# image_of_binary NAME EXE PATH: an image of one prebuilt binary at PATH, run as 65532, as the
# project's own images of it have it; made again only when the binary is newer than the image.
image_of_binary() {
  local name=$1 exe=$2 path=$3 out=$cache/$1.tar
  if [ -f "$out" ] && [ -s "$cache/$name.ref" ] && [ "$out" -nt "$exe" ] && [ -z "${REGISTRY:-}" ]; then
    say "$(cat "$cache/$name.ref")  (up to date)"
    return
  fi
  emit "$name" "$out" "$cache/$name.ref" \
    -base-binary "$exe" -binary-path "$path" -entrypoint "[\"$path\"]" -user 65532:65532
}

# The weed binary is built once per version (hack/seaweedfs.sh).
image_seaweedfs() {
  local exe=${WEED_BIN:-}
  [ -n "$exe" ] || exe=$(bash "$root/hack/seaweedfs.sh")
  image_of_binary seaweedfs "$exe" /weed
}

# Kueue's manager, as its own image has it: /manager (hack/kueue.sh).
image_kueue() {
  local exe=${KUEUE_BIN:-}
  [ -n "$exe" ] || exe=$(bash "$root/hack/kueue.sh")
  image_of_binary kueue "$exe" /manager
}

# Flux's two controllers, each as its own image has it: /usr/local/bin/<name>, the entrypoint
# (hack/flux.sh).
image_flux() {
  local exe name
  for exe in $(bash "$root/hack/flux.sh"); do
    name=${exe##*/}; name=${name%-v*}
    image_of_binary "flux-$name" "$exe" "/usr/local/bin/$name"
  done
}

debian_mirror() {
  local m
  m=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  echo "${DEBIAN_MIRROR:-${m:-http://deb.debian.org/debian}}"
}

# The python-base recipe's version, recorded in .cache/images/python-base.recipe with the
# rootfs and image it built; a cache of another version is built again. 2: bytecode checked by
# the source's hash rather than its mtime.
python_base_recipe=2
python_base_current() { [ "$(cat "$cache/python-base.recipe" 2>/dev/null)" = "$python_base_recipe" ]; }

# python-base rootfs: debootstrap once, cached as .cache/images/python-base.rootfs.tar.gz
python_rootfs() {
  local tgz=$cache/python-base.rootfs.tar.gz
  [ -f "$tgz" ] && python_base_current && return
  command -v debootstrap >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap; }
  local r=$cache/python-base.rootfs
  case "$r" in "$root"/.cache/images/*) ;; *) echo "refusing rootfs dir $r" >&2; exit 1;; esac
  rm -rf "$r"
  say "debootstrap bookworm minbase + python3 python3-pytest git (mirror $(debian_mirror))"
  debootstrap --variant=minbase --include=python3,python3-pytest,git bookworm "$r" "$(debian_mirror)" > "$cache/debootstrap.log" 2>&1 \
    || { tail -20 "$cache/debootstrap.log" >&2; exit 1; }
  chroot "$r" apt-get clean >/dev/null 2>&1 || true
  rm -rf "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/*.bin "$r"/usr/share/doc/* "$r"/usr/share/man/* \
    "$r"/usr/share/info/* "$r"/usr/share/locale/* "$r"/var/log/*.log "$r"/var/cache/debconf/*-old
  # Debian byte-compiles Python modules into .pyc files stamped with each source's mtime, and
  # the packing below sets every mtime to 2000-01-01: each stamp would be stale, and Python
  # would compile every module it imports at every start (0.7 CPU-s for pytest's imports, in
  # each test run of a grade), unable to write the cache as the test identity. Hash-checked
  # bytecode holds whatever the mtimes.
  chroot "$r" sh -c 'python3 -m compileall -q -f --invalidation-mode checked-hash /usr/lib/python3.*[0-9] /usr/lib/python3/dist-packages'
  find "$r" -xdev -exec touch -h -d 2000-01-01T00:00:00Z {} +
  if chroot "$r" python3 -v -c 'import pytest' 2>&1 | grep 'bytecode is stale' >&2; then
    echo "python-base: Python finds stale bytecode once the mtimes are the packing's" >&2; exit 1
  fi
  # Task repositories are owned by root while agents may run as another user: let git work there.
  printf '[safe]\n\tdirectory = *\n[user]\n\tname = sweep\n\temail = sweep@localhost\n[init]\n\tdefaultBranch = main\n' > "$r/etc/gitconfig"
  say "rootfs $(du -sh "$r" | cut -f1); packing"
  tar --numeric-owner --xattrs --sort=name --mtime=2000-01-01 -C "$r" -cf - . | gzip -6 > "$tgz.tmp"
  mv "$tgz.tmp" "$tgz"
  rm -rf "$r"
  say "rootfs tarball $(du -h "$tgz" | cut -f1)"
}

image_python_base() {
  python_rootfs
  emit python-base "$cache/python-base.tar" "$cache/python-base.ref" \
    -base-rootfs "$cache/python-base.rootfs.tar.gz" -env LANG=C.UTF-8 -cmd '["python3"]'
  echo "$python_base_recipe" > "$cache/python-base.recipe"
}

# task_images NAME REPO_DIR TESTS_DIR WORKDIR
#   agent image    = python-base + REPO_DIR at WORKDIR, a git repository whose base commit is
#                    tagged `baseline` (an existing .git is kept and its HEAD tagged)
#   verifier image = agent image + TESTS_DIR at /tests
# TASK_CHOWN=UID:GID sets the owner of the repository files (default 0:0); TASK_AGENT_REF and
# TASK_VERIFIER_REF set explicit references (e.g. the ones `sweep tasks bundle` wrote).
task_images() {
  local name=$1 repo=$2 tests=$3 workdir=$4
  [ -d "$repo" ] || { echo "task $name: repository dir $repo not found" >&2; exit 1; }
  [ -d "$tests" ] || { echo "task $name: tests dir $tests not found" >&2; exit 1; }
  case "$workdir" in /*) ;; *) echo "task $name: workdir must be absolute: $workdir" >&2; exit 1;; esac
  { [ -f "$cache/python-base.tar" ] && python_base_current; } || image_python_base
  local out=$cache/tasks/$name stage
  mkdir -p "$out"
  stage=$(mktemp -d "$cache/stage.XXXXXX")
  cp -a "$repo/." "$stage/"
  local g=(git -C "$stage" -c user.name=sweep -c user.email=sweep@localhost -c init.defaultBranch=main)
  export GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z
  if [ ! -e "$stage/.git" ]; then
    "${g[@]}" init -q
    "${g[@]}" add -A
    "${g[@]}" commit -q --allow-empty -m "baseline"
  fi
  "${g[@]}" rev-parse -q --verify refs/tags/baseline >/dev/null || "${g[@]}" tag baseline
  # The index records inodes and change times; rebuilt from the tree its stat data is zero, so the
  # same content gives the same layer and tag (git refreshes it on the first status).
  rm -f "$stage/.git/index"; "${g[@]}" read-tree HEAD
  EMIT_REF=${TASK_AGENT_REF:-} emit "$name-env" "$out/agent.tar" "$out/agent.ref" \
    -base-image "$cache/python-base.tar" -layer "$stage:$workdir" -chown "${TASK_CHOWN:-0:0}" \
    -workdir "$workdir" -label eval.sweep.dev/task="$name"
  rm -rf "$stage"
  EMIT_REF=${TASK_VERIFIER_REF:-} emit "$name-verifier" "$out/verifier.tar" "$out/verifier.ref" \
    -base-image "$out/agent.tar" -layer "$tests:/tests" -label eval.sweep.dev/task="$name"
}

# task_images_dir TASKDIR: resolve the repository, tests and workdir of a task directory.
#   TASK_NAME (default: directory name), TASK_TESTS (default TASKDIR/tests),
#   TASK_REPO (default the first of TASKDIR/environment/repo, TASKDIR/repo),
#   TASK_WORKDIR (default [environment] workdir of task.toml, else /app)
task_images_dir() {
  local dir=${1:?task-images TASKDIR}
  dir=$(cd "$dir" && pwd)
  local name=${TASK_NAME:-$(basename "$dir")} repo=${TASK_REPO:-} workdir=${TASK_WORKDIR:-}
  if [ -z "$repo" ]; then
    for c in "$dir/environment/repo" "$dir/repo"; do [ -d "$c" ] && { repo=$c; break; }; done
  fi
  [ -n "$repo" ] || { echo "$dir: no repository dir (environment/repo or repo); set TASK_REPO" >&2; exit 1; }
  if [ -z "$workdir" ] && [ -f "$dir/task.toml" ]; then
    workdir=$(awk '/^\[/{s=$0} s=="[environment]" && /^[[:space:]]*workdir[[:space:]]*=/{sub(/^[^=]*=[[:space:]]*/,""); gsub(/["'"'"']/,""); sub(/[[:space:]]*(#.*)?$/,""); print; exit}' "$dir/task.toml")
  fi
  task_images "$name" "$repo" "${TASK_TESTS:-$dir/tests}" "${workdir:-/app}"
}

# catalogue DIR...: every task's images under the references the catalogue gives them
# (`sweep tasks images DIR... --registry ${REGISTRY:-localhost/sweep}`), so that the ConfigMaps
# of `sweep tasks bundle` with the same registry name exactly these images. Prebuilt images
# (docker_image in task.toml) are skipped.
catalogue_images() {
  [ $# -gt 0 ] || { echo "usage: $0 catalogue TASKS-DIR..." >&2; exit 2; }
  # jq reads the image list below; a fresh Debian machine has none (as with debootstrap above).
  command -v jq >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends jq; }
  (cd "$root" && go build -o "$bin/sweep" ./cmd/sweep)
  local json
  json=$("$bin/sweep" tasks images "$@" --registry "$prefix" -o json)
  local task
  for task in $(jq -r '[.[] | select(.build != null) | .task] | unique | .[]' <<<"$json"); do
    local agent verifier ctx dir
    agent=$(jq -r --arg t "$task" '.[] | select(.task == $t and .role == "agent") | .image' <<<"$json")
    verifier=$(jq -r --arg t "$task" '.[] | select(.task == $t and .role == "verifier") | .image' <<<"$json")
    ctx=$(jq -r --arg t "$task" '.[] | select(.task == $t and .role == "verifier") | .build.context' <<<"$json")
    dir=$(dirname "$ctx")   # the verifier is built from <task>/tests
    say "task $task ($dir)"
    TASK_AGENT_REF=$agent TASK_VERIFIER_REF=$verifier task_images_dir "$dir"
  done
}

# Import docker-archive tarballs into the containerd of the cluster from hack/cluster.sh.
import_images() {
  local sock=$root/.cache/cluster/node/run/containerd/containerd.sock ctr=$root/bin/k8s/ctr
  [ -S "$sock" ] || { echo "cluster not running (no $sock): hack/cluster.sh up" >&2; exit 1; }
  local files=("$@")
  if [ ${#files[@]} = 0 ]; then
    mapfile -t files < <(find "$cache" -name '*.tar' ! -path '*/stage.*' | sort)
  fi
  local f
  for f in "${files[@]}"; do
    "$ctr" --address "$sock" -n k8s.io images import --local "$f" >/dev/null 2>&1 \
      || "$ctr" --address "$sock" -n k8s.io images import "$f" >/dev/null
    say "imported ${f#$root/}"
  done
}

list_images() {
  find "$cache" -name '*.ref'  | sort | while read -r f; do
    printf '%-60s %s\n' "${f#$root/}" "$(cat "$f")"
  done
}

cmd=${1:-}; [ $# -gt 0 ] && shift
case "$cmd" in
  hook) image_hook ;;
  manager) image_manager ;;
  python-base) image_python_base ;;
  seaweedfs) image_seaweedfs ;;
  kueue) image_kueue ;;
  flux) image_flux ;;
  task-images) task_images_dir "$@" ;;
  catalogue) catalogue_images "$@" ;;
  task-images-from) [ $# = 4 ] || { echo "usage: $0 task-images-from NAME REPO_DIR TESTS_DIR WORKDIR" >&2; exit 2; }; task_images "$@" ;;
  import) import_images "$@" ;;
  list) list_images ;;
  *) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
esac
say "done"
