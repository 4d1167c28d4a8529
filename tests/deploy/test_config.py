"""Configuration: every variable of the settings table (docs/configuration.md) is read from the environment, and a bad value stops
the service before it serves anything, with one line naming the variable (never the secret itself)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from service.config import Config, ConfigError, Quota

ROOT = Path(__file__).resolve().parents[2]
KEY = "q" * 43  # 32 bytes in URL-safe base64


def test_the_defaults() -> None:
    c = Config.from_env({})
    assert (c.redis_url, c.redis_timeout, c.sealing_key, c.state_tag_key) == (None, 0.5, None, None)
    assert (c.session_ttl, c.finished_ttl, c.long_poll_max, c.key_prefix, c.log_level) == (
        86400, 604800, 30.0, "cr:", "INFO")
    assert (c.max_deals, c.max_session_bytes, c.max_moves, c.session_quota, c.request_quota, c.proxy_hops) == (
        100, 524288, 10000, Quota(60, 60), None, 0)
    assert c.request_turns == 4


def test_every_variable_is_read() -> None:
    c = Config.from_env({"REDIS_URL": "redis://r:6379/1", "REDIS_TIMEOUT": "0.25", "SEALING_KEY": KEY,
                         "STATE_TAG_KEY": KEY, "SESSION_TTL": "60", "FINISHED_TTL": "120", "LONG_POLL_MAX": "5",
                         "KEY_PREFIX": "x:", "LOG_LEVEL": "debug", "MAX_DEALS": "7", "MAX_SESSION_BYTES": "9000",
                         "MAX_MOVES": "50", "SESSION_QUOTA": "5/10", "REQUEST_QUOTA": "100/1", "PROXY_HOPS": "2",
                         "REQUEST_TURNS": "6"})
    assert c.request_turns == 6
    assert (c.max_deals, c.max_session_bytes, c.max_moves, c.session_quota, c.request_quota, c.proxy_hops) == (
        7, 9000, 50, Quota(5, 10), Quota(100, 1), 2)
    assert (c.redis_url, c.redis_timeout, c.session_ttl, c.finished_ttl, c.long_poll_max, c.key_prefix,
            c.log_level) == ("redis://r:6379/1", 0.25, 60, 120, 5.0, "x:", "DEBUG")
    assert c.sealing_key == c.state_tag_key and c.sealing_key is not None and len(c.sealing_key) == 32


@pytest.mark.parametrize("name, value", [
    ("REDIS_URL", "http://localhost:6379"), ("REDIS_TIMEOUT", "soon"), ("REDIS_TIMEOUT", "0"),
    ("REDIS_TIMEOUT", "inf"), ("REDIS_TIMEOUT", "nan"), ("SEALING_KEY", "tooshort"), ("STATE_TAG_KEY", "!!"),
    ("SESSION_TTL", "1.5"), ("SESSION_TTL", "-3"), ("FINISHED_TTL", "week"), ("LONG_POLL_MAX", "-1"),
    ("LOG_LEVEL", "LOUD"), ("MAX_DEALS", "0"), ("MAX_SESSION_BYTES", "1MB"), ("MAX_MOVES", "-5"),
    ("SESSION_QUOTA", "60"), ("SESSION_QUOTA", "60/0"), ("REQUEST_QUOTA", "a/b"), ("REQUEST_QUOTA", "-1/60"),
    ("PROXY_HOPS", "-1"), ("PROXY_HOPS", "99"), ("REQUEST_TURNS", "-2"), ("REQUEST_TURNS", "many")])
def test_a_bad_value_names_its_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Config.from_env({name: value})


@pytest.mark.parametrize("name, value", [("PORT", "eighty"), ("WEB_CONCURRENCY", "0"), ("SESSION_TTL", "x"),
                                         ("SEALING_KEY", "abc"), ("COSTLY_HELPERS", "-1")])
def test_gunicorn_refuses_to_start_with_one_clear_line(name: str, value: str) -> None:
    env = {**os.environ, "HOST": "127.0.0.1", "PORT": "8799", name: value}
    env.pop("REDIS_URL", None)
    gunicorn = Path(sys.executable).with_name("gunicorn")
    proc = subprocess.run([str(gunicorn), "-c", "deploy/gunicorn.conf.py", "service.app:create_app()"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.startswith("card-referee:")]
    assert lines and name in lines[0], proc.stderr[-800:]
    assert "Traceback" not in proc.stderr


def test_the_redis_topology_variables() -> None:
    c = Config.from_env({"REDIS_MODE": "sentinel", "REDIS_SENTINELS": "s1:26379, [::1]:26380",
                         "REDIS_SENTINEL_MASTER": "referee", "REDIS_WAIT_REPLICAS": "1", "REDIS_WAIT_TIMEOUT": "0.2"})
    assert (c.redis_mode, c.redis_sentinels, c.redis_sentinel_master, c.redis_wait_replicas, c.redis_wait_timeout) == (
        "sentinel", (("s1", 26379), ("::1", 26380)), "referee", 1, 0.2)
    c = Config.from_env({"REDIS_MODE": "cluster", "REDIS_URL": "redis://node:7000/0"})
    assert (c.redis_mode, c.redis_sentinels, c.redis_wait_replicas) == ("cluster", (), 0)
    assert Config.from_env({}).redis_mode == "single"
    for bad, name in (({"REDIS_MODE": "sentinel"}, "REDIS_SENTINELS"), ({"REDIS_MODE": "cluster"}, "REDIS_URL"),
                      ({"REDIS_MODE": "ring"}, "REDIS_MODE"), ({"REDIS_SENTINELS": "host"}, "REDIS_SENTINELS"),
                      ({"REDIS_WAIT_REPLICAS": "1", "REDIS_WAIT_TIMEOUT": "0.5"}, "REDIS_WAIT_TIMEOUT"),
                      ({"REDIS_WAIT_REPLICAS": "x"}, "REDIS_WAIT_REPLICAS")):
        with pytest.raises(ConfigError, match=name):
            Config.from_env(bad)


@pytest.mark.parametrize("value", ["off", "OFF", "0"])
def test_a_quota_can_be_switched_off(value: str) -> None:
    c = Config.from_env({"SESSION_QUOTA": value, "REQUEST_QUOTA": value, "REQUEST_TURNS": value})
    assert c.session_quota is None and c.request_quota is None and c.request_turns == 0


def test_keys_never_show_in_a_repr() -> None:
    c = Config.from_env({"SEALING_KEY": KEY, "STATE_TAG_KEY": KEY})
    assert "sealing_key" not in repr(c) and "state_tag_key" not in repr(c)


def test_gunicorn_will_not_share_a_port_another_server_listens_on() -> None:
    """A port already served (here by a socket bound with SO_REUSEPORT, as a gunicorn with reuse_port binds
    it) must stop a second gunicorn at start, not be shared with it: with reuse_port the kernel let both bind
    and handed half the connections to whichever was stale."""
    held = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        held.bind(("127.0.0.1", 0))
        held.listen()
        env = {**os.environ, "HOST": "127.0.0.1", "PORT": str(held.getsockname()[1])}
        env.pop("REDIS_URL", None)
        gunicorn = Path(sys.executable).with_name("gunicorn")
        try:
            proc = subprocess.run([str(gunicorn), "-c", "deploy/gunicorn.conf.py", "service.app:create_app()"],
                                  cwd=ROOT, env=env, capture_output=True, text=True, timeout=30, check=False)
        except subprocess.TimeoutExpired:
            pytest.fail("a second gunicorn started on a port that was already served")
        assert proc.returncode != 0 and "Address already in use" in proc.stderr, proc.stderr[-800:]
    finally:
        held.close()
