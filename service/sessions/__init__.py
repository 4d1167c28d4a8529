"""The session domain: sessions kept in a store, their moves refereed, clocks, reveals and timeouts."""
