#!/usr/bin/env bash
# Every benchmark in one command: ./bench/run.sh --mode full   (or --mode short; --out DIR)
# Creates .venv with the bench extra (matplotlib), makes sure redis-server and wrk exist (apt-get when
# missing; without wrk bench/run.py falls back to its Python load generator), then runs bench/run.py.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/bootstrap.sh
bootstrap_venv bench
ensure_redis_server
if ! command -v wrk >/dev/null 2>&1; then
  echo "wrk not found: installing it with apt-get" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  { $sudo apt-get install -y -qq wrk || { $sudo apt-get update -qq && $sudo apt-get install -y -qq wrk; }; } \
    >/dev/null 2>&1 || echo "could not install wrk: using the Python load generator" >&2
fi
exec .venv/bin/python bench/run.py "$@"
