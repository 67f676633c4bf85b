# Sourced by the scripts that compare kassa builds (bench-list.sh, bench-steps.sh).
# build_revs WORK BUILD...: builds one kassa binary per BUILD (a git revision such as
# "HEAD" or "2cf6d72", or "." for the working tree) as WORK/kassa-NAME, and sets the
# array names to the NAMEs in order.
build_revs() {
  local work=$1 b name
  shift
  names=()
  for b in "$@"; do
    name=$(echo "$b" | tr -c 'a-zA-Z0-9\n' _)
    if [ "$b" = . ]; then
      name=worktree
      go build -o "$work/kassa-$name" ./cmd/kassa
    else
      git worktree add -q --detach "$work/src-$name" "$b"
      (cd "$work/src-$name" && go build -o "$work/kassa-$name" ./cmd/kassa)
      git worktree remove --force "$work/src-$name"
    fi
    names+=("$name")
  done
}
