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
read -r -a cli <<<"${RUBRIC_COUNCIL_CLI:-npx --no-install rubric-council}"

mkdir -p .rubric-council/stop-hook
[ -f .rubric-council/.gitignore ] || printf '*\n' >.rubric-council/.gitignore
counter=".rubric-council/stop-hook/$session"
count=$(($(cat "$counter" 2>/dev/null || echo 0) + 1))

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
echo "$count" >"$counter"
{
  echo "The rubric does not pass yet (check $count of $max, exit $code). Fix what it says, then finish again:"
  echo
  echo "$summary"
} >&2
exit 2
