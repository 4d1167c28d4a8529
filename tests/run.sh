#!/usr/bin/env bash
# Run every test: creates .venv, installs the project with its test extra, makes sure redis-server,
# Debian's chromium and chromedriver (tests/web drives the browser; the tests start their own redis on free ports)
# and the tools the documentation's examples use (curl, jq, xxd: tests/docs runs every example) and Node.js with npm
# (tests/clients builds and tests the TypeScript client) exist, then
# pytest on both cores. Exit code = pytest's. Arguments go to pytest.
#
# Expect up to 20 minutes on two cores (the bound CI holds it to; a first run adds the installs). A machine busy
# with other work takes longer: 33 minutes were seen with five suites sharing two cores. The tree is left as it
# was: nothing is written into tracked files.
#
# ./tests/run.sh --quick: the edit-test loop. It runs the tests marked quick: every test below tests/engine (the
# rules; its test_replays.py plays the goldens of tests/replays), tests/replays and tests/api that is not marked
# slow (tests/conftest.py marks them by directory), with fewer hypothesis examples, and needs neither chromium nor
# the documentation's tools. It takes about 2 CPU-minutes (105-143 s in nine runs), so well under 3
# minutes when the two cores are its own; on two cores shared with other suites it took 2 min 17 s to 4 min 47 s
# (median 3 min 14 s) at load average 5-10, and 4 min 41 s to 8 min 10 s at 12-15 (farm-bench, three runs each).
# `pytest -m quick` selects the same tests with the full example counts.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
for arg in "$@"; do [ "$arg" = "--quick" ] && quick=1; done
. deploy/bootstrap.sh
bootstrap_venv test
ensure_redis_server
ensure_doc_tools() {
  local missing=() tool
  for tool in curl jq xxd; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
  command -v node >/dev/null 2>&1 || missing+=(nodejs)   # tests/clients: the TypeScript client
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "${missing[*]} not found: installing with apt-get" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
if [ "$quick" -eq 0 ]; then
  ensure_chromium
  ensure_doc_tools
  export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"   # --quick: tests/conftest.py loads its quick profile
fi
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-2}" -p no:cacheprovider "$@"
