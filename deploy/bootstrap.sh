# Sourced by deploy/serve.sh and tests/run.sh: a project virtualenv with the dependencies installed.
# Usage: bootstrap_venv [extra]   (extra: "test" for the test dependencies). The Python client package
# clients/python is always installed: the service's tournament director pairs and ranks with its tournament
# library (docs/architecture.md), and its own tests run in the suite.
bootstrap_venv() {
  local extra="${1:-}" spec="." stamp
  [ -n "$extra" ] && spec=".[$extra]"
  stamp=".venv/.installed-${extra:-runtime}"
  if [ ! -x .venv/bin/python ]; then
    "${PYTHON:-python3}" -m venv .venv
  fi
  if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ clients/python/pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e "$spec" -e clients/python
    touch "$stamp"
  fi
}

# redis-server on PATH, installed from Debian's packages when missing.
ensure_redis_server() {
  if command -v redis-server >/dev/null 2>&1; then return 0; fi
  echo "redis-server not found: installing it with apt-get" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null
}

# Debian's chromium and its chromedriver for the browser test (tests/web), installed when missing. Nothing is
# downloaded at test time: the test names /usr/bin/chromedriver itself, so selenium-manager never runs.
ensure_chromium() {
  if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then return 0; fi
  echo "chromium or chromedriver not found: installing them with apt-get" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
}

free_port() {
  .venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
