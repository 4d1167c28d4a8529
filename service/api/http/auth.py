"""Bearer tokens read from the ``Authorization`` header, and the 401 answers that ask for one."""
from __future__ import annotations

import re

from .errors import ApiError

TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,256}$")
REALM = 'Bearer realm="card-referee"'


def bearer_token(authorization: str) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None when it is malformed."""
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and TOKEN.match(token) else None


def token_needed(what: str) -> ApiError:
    return ApiError(401, "unauthorized", f"This needs {what}: 'Authorization: Bearer <token>'.",
                    headers={"WWW-Authenticate": REALM})


def token_refused(detail: str) -> ApiError:
    return ApiError(401, "unauthorized", detail, headers={"WWW-Authenticate": REALM + ', error="invalid_token"'})
