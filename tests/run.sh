#!/usr/bin/env bash
# Run every test: creates .venv, installs the project with its test extra, makes sure redis-server
# exists (the tests start their own on free ports), then pytest on both cores. Exit code = pytest's.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/bootstrap.sh
bootstrap_venv test
ensure_redis_server
export HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}"
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-2}" -p no:cacheprovider "$@"
