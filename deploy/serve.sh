#!/usr/bin/env bash
# Start Card Referee on http://127.0.0.1:${PORT:-8000} (gunicorn, deploy/gunicorn.conf.py).
# Without REDIS_URL it starts a private redis-server (data in .redis-data/, append-only) for sessions
# and stops it on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/bootstrap.sh
bootstrap_venv

redis_pid=""
cleanup() { [ -n "$redis_pid" ] && kill "$redis_pid" 2>/dev/null || true; }
trap cleanup EXIT INT TERM

if [ -z "${REDIS_URL:-}" ]; then
  ensure_redis_server
  port=$(free_port)
  mkdir -p .redis-data
  redis-server --port "$port" --bind 127.0.0.1 --dir "$PWD/.redis-data" --appendonly yes \
    --save "" --daemonize no --logfile "$PWD/.redis-data/redis.log" &
  redis_pid=$!
  export REDIS_URL="redis://127.0.0.1:$port/0"
  for _ in $(seq 50); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  echo "embedded redis-server on port $port (pid $redis_pid)" >&2
fi

export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$PWD/.metrics}"
.venv/bin/gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'
