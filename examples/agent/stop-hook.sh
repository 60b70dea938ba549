#!/usr/bin/env bash
# A Claude Code Stop hook (docs/agent-loop.md#a-stop-hook): the agent cannot stop until
# `rubric-council check` passes, or RUBRIC_COUNCIL_MAX_ITERATIONS (3) checks have not passed.
# Exit 2 with the reason on stderr is how a Stop hook keeps the agent working; exit 0 lets it stop.
#
# Environment:
#   RUBRIC_COUNCIL_MAX_ITERATIONS  checks before the agent may stop anyway (default 3)
#   RUBRIC_COUNCIL_CLI             how to run the CLI (default: npx --no-install rubric-council)
# Arguments are passed to `check` (e.g. --base main --rubric .github/rubric.md).
set -uo pipefail

input=$(cat)
# The agent's session, to count its attempts; only a plain name is used as a file name.
session=$(printf '%s' "$input" |
  sed -n 's/.*"session_id"[[:space:]]*:[[:space:]]*"\([A-Za-z0-9_-]\{1,100\}\)".*/\1/p' | head -n 1)
session=${session:-default}
max=${RUBRIC_COUNCIL_MAX_ITERATIONS:-3}
# Numbers are matched, never evaluated: bash arithmetic runs the `$(…)` in `x[$(…)]`.
if ! [[ $max =~ ^[0-9]{1,4}$ ]]; then
  echo "rubric-council: RUBRIC_COUNCIL_MAX_ITERATIONS is not a number; using 3" >&2
  max=3
fi
read -r -a cli <<<"${RUBRIC_COUNCIL_CLI:-npx --no-install rubric-council}"

# The count lives under the git directory, which no commit can hold, so nothing the repository
# commits (a counter file, a symbolic link) stands in for it; the working tree is never written.
if ! root=$(git rev-parse --git-path rubric-council 2>/dev/null) || [ -z "$root" ]; then
  echo "rubric-council: not in a git repository, so the Stop hook cannot count checks; letting the agent stop" >&2
  exit 0
fi
state="$root/stop-hook"
counter="$state/$session"
# A link where the count is kept is removed, never followed: what it points at stays as it was.
unlink_link() {
  [ -L "$1" ] || return 0
  echo "rubric-council: $1 is a symbolic link: removed, not followed" >&2
  rm -f -- "$1" && return 0
  echo "rubric-council: cannot remove $1; letting the agent stop" >&2
  exit 0
}
unlink_link "$root"
mkdir -p -- "$root"
unlink_link "$state"
mkdir -p -- "$state"
unlink_link "$counter"
count=0
if [ -f "$counter" ]; then
  raw=
  IFS= read -r -n 16 raw <"$counter" || true
  if [[ $raw =~ ^[0-9]{1,4}$ ]]; then
    count=$((10#$raw))
  else
    echo "rubric-council: $counter does not hold a number; counting from 0" >&2
  fi
fi
count=$((count + 1))

errors=$(mktemp)
summary=$("${cli[@]}" check "$@" 2>"$errors")
code=$?
# A check that could not run (exit 2 before any gate) says why on stderr only.
[ -n "$summary" ] || summary=$(tail -n 20 "$errors")
rm -f "$errors"
if [ "$code" -eq 0 ]; then
  rm -f "$counter"
  exit 0
fi
if [ "$count" -ge "$max" ]; then
  rm -f "$counter"
  echo "rubric-council: no PASS after $count checks; letting the agent stop" >&2
  exit 0
fi
# Written as a new file (noclobber creates it exclusively), so never through a link.
rm -f -- "$counter"
(set -C && echo "$count" >"$counter") || echo "rubric-council: cannot write $counter" >&2
{
  echo "The rubric does not pass yet (check $count of $max, exit $code). Fix what it says, then finish again:"
  echo
  echo "$summary"
} >&2
exit 2
