#!/usr/bin/env bash
# Run every test: creates .venv, installs the project with its test extra, makes sure redis-server
# and Debian's chromium and chromedriver exist (tests/web drives the browser; the tests start their own redis on
# free ports), then pytest on both cores. Exit code = pytest's.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/bootstrap.sh
bootstrap_venv test
ensure_redis_server
ensure_chromium
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-2}" -p no:cacheprovider "$@"
