#!/usr/bin/env bash
# Start Card Referee on http://127.0.0.1:${PORT:-8000} (gunicorn, deploy/gunicorn.conf.py). HOST=0.0.0.0 listens on
# every interface instead (a container, or a machine behind its own firewall).
# Without REDIS_URL it starts a private redis-server (data in .redis-data/, append-only) for sessions.
# TERM or INT (Ctrl-C) is passed on to gunicorn, which finishes its requests and stops its workers; then the
# private redis-server is stopped: nothing started here outlives this script.
set -euo pipefail
cd "$(dirname "$0")/.."
. deploy/bootstrap.sh
bootstrap_venv

redis_pid=""
gunicorn_pid=""
stopping=""

stop_gunicorn() {
  stopping=1
  [ -n "$gunicorn_pid" ] && kill -TERM "$gunicorn_pid" 2>/dev/null || true
}

cleanup() {
  trap - EXIT INT TERM
  stop_gunicorn
  [ -n "$gunicorn_pid" ] && wait "$gunicorn_pid" 2>/dev/null || true
  if [ -n "$redis_pid" ]; then
    kill -TERM "$redis_pid" 2>/dev/null || true
    wait "$redis_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap stop_gunicorn INT TERM

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

export HOST="${HOST:-127.0.0.1}"
export PROMETHEUS_MULTIPROC_DIR="${PROMETHEUS_MULTIPROC_DIR:-$PWD/.metrics}"
[ -z "$stopping" ] || exit 0
.venv/bin/gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()' &
gunicorn_pid=$!
# wait returns early when a trapped signal arrives: wait again until gunicorn has really stopped
status=0
while kill -0 "$gunicorn_pid" 2>/dev/null; do
  wait "$gunicorn_pid" && status=0 || status=$?
done
gunicorn_pid=""
exit "$status"
