"""The shapes the routes' declarations are made of: answers, problems, pages. Like operations.py, this module
imports nothing of the service, so that every module declaring a route may use it."""
from __future__ import annotations

from typing import Any

JSON = "application/json"
PROBLEM = "application/problem+json"
BEARER = "bearerAuth"
STRING = {"type": "string"}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def ok(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {JSON: {"schema": schema}}}


def problem_response(description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description, "content": {PROBLEM: {"schema": ref("Problem")}}}
    if headers:
        out["headers"] = headers
    return out


def malformed() -> dict[str, Any]:
    return problem_response("invalid_request: the body, a query parameter or a header is malformed.")


def unauthorized(description: str) -> dict[str, Any]:
    """401: the answer says, in WWW-Authenticate, which token it wants."""
    return problem_response(description, {"WWW-Authenticate": {"required": True, "schema": STRING}})


def text(media: str, description: str) -> dict[str, Any]:
    """An answer that is text of the given media type (a page, a script, metrics)."""
    return {"description": description, "content": {media: {"schema": STRING}}}


def html_page(description: str) -> dict[str, Any]:
    return text("text/html", description)


def with_page(response: dict[str, Any]) -> dict[str, Any]:
    """A page's 404: a problem, or an HTML page for a client whose Accept prefers HTML (a browser)."""
    content = {**response["content"], "text/html": {"schema": STRING}}
    return {**response, "description": response["description"] + " A browser (Accept preferring text/html) is "
                                                                  "shown an HTML page instead.", "content": content}


def with_headers(response: dict[str, Any], headers: dict[str, Any], **more: Any) -> dict[str, Any]:
    """The answer with the headers it carries (and any other keys, such as ``links``)."""
    return {**response, "headers": headers, **more}


def location(response: dict[str, Any], **more: Any) -> dict[str, Any]:
    """A 201 answer with the Location of what it made."""
    return with_headers(response, {"Location": {"required": True, "schema": {"type": "string"}}}, **more)


def retry_after(description: str) -> dict[str, Any]:
    return {"Retry-After": {"required": True, "description": description,
                            "schema": {"type": "string", "pattern": "^[0-9]+$"}}}


def too_many(creating_a_session: bool = False) -> dict[str, Any]:
    """429: a client's quota (REQUEST_QUOTA; and SESSION_QUOTA when creating a session) is used up."""
    which = "SESSION_QUOTA or REQUEST_QUOTA" if creating_a_session else "REQUEST_QUOTA"
    return problem_response(f"too_many_requests: this client's quota ({which}) is used up for now.",
                            retry_after("Seconds until the quota's window ends."))


def event_stream(description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """A ``text/event-stream`` answer (never stored by a cache)."""
    return {"description": description, "headers": {"Cache-Control": {"schema": {"type": "string",
                                                                                 "enum": ["no-store"]}}},
            "content": {"text/event-stream": {"schema": schema or {"type": "string"}}}}
