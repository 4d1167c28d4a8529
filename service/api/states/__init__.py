"""States crossing the API boundary: plain JSON with a tag, or sealed (docs/integrity.md)."""
