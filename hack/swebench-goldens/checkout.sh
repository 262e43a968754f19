# Sourced by run.sh and speed.sh: swebench_checkouts SRC TMP TAG... extracts each TAG of the
# SWE-bench git directory or URL SRC into TMP/TAG (a clone, if needed, goes to TMP too).
swebench_checkouts() {
	local src=$1 tmp=$2 gitdir tag
	shift 2
	if git --git-dir="$src" rev-parse --git-dir >/dev/null 2>&1; then
		gitdir=$src
	elif git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
		gitdir=$(git -C "$src" rev-parse --absolute-git-dir)
	else
		git clone --quiet --bare --filter=blob:none "$src" "$tmp/swebench.git"
		gitdir=$tmp/swebench.git
	fi
	for tag in "$@"; do
		if ! git --git-dir="$gitdir" rev-parse --verify --quiet "refs/tags/$tag" >/dev/null; then
			echo "$src has no tag $tag: give a clone of SWE-bench/SWE-bench with its tags" >&2
			return 1
		fi
		mkdir -p "$tmp/$tag"
		git --git-dir="$gitdir" archive "$tag" swebench | tar -x -C "$tmp/$tag"
	done
}
