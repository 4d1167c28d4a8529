#!/usr/bin/env bash
# Run every test: creates .venv, installs the project with its test extra, makes sure redis-server,
# Debian's chromium and chromedriver (tests/web drives the browser; the tests start their own redis on free ports)
# and the tools the documentation's examples use (curl, jq, xxd: tests/docs runs every example) and Node.js with npm
# (tests/clients builds and tests the TypeScript client) exist, then
# pytest on both cores. Exit code = pytest's.
#
# Expect up to 20 minutes on two cores (the bound CI holds it to; a first run adds the installs). A machine busy
# with other work takes longer: 33 minutes were seen with five suites sharing two cores. The tree is left as it
# was: nothing is written into tracked files.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/bootstrap.sh
bootstrap_venv test
ensure_redis_server
ensure_chromium
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
ensure_doc_tools
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-2}" -p no:cacheprovider "$@"
