"""Files of the project that are not Python modules (openapi.yaml, docs/games/*.md).

From a checkout they sit at the repository's root, beside the package; in the container image the package is
installed elsewhere and they are copied into the working directory (deploy/Dockerfile), so both are looked at.
"""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def project_file(relative: str) -> Path | None:
    for base in (ROOT, Path.cwd()):
        candidate = base / relative
        if candidate.is_file():
            return candidate
    return None
