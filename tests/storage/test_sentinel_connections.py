"""A connection Sentinel manages is connected before the store sends on it (redis_store._connected): to the master
the sentinels name rather than to its default address, and the sentinels are asked again only once it has lost
its connection (after a failover, the new master)."""
from __future__ import annotations

from redis.sentinel import SentinelManagedConnection

from service.storage.redis_store import _connected
from tests.redis_server import RedisServer


class Sentinels:
    """What a Sentinel-managed connection asks of its pool: where the master is (here the test's Redis)."""

    is_master = True
    check_connection = False

    def __init__(self, port: int) -> None:
        self.port = port
        self.asked = 0

    def get_master_address(self) -> tuple[str, int]:
        self.asked += 1
        return "127.0.0.1", self.port


def test_a_sentinel_connection_asks_for_the_master_only_while_unconnected(redis_server: RedisServer) -> None:
    sentinels = Sentinels(redis_server.port)
    conn = SentinelManagedConnection(connection_pool=sentinels, decode_responses=True)  # default: localhost:6379
    try:
        assert _connected(conn) is conn and sentinels.asked == 1
        conn.send_command("PING", check_health=False)
        assert conn.read_response() == "PONG"
        _connected(conn)
        assert sentinels.asked == 1
        conn.disconnect()
        _connected(conn)
        assert sentinels.asked == 2
    finally:
        conn.disconnect()
