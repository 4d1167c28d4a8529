"""The plain checks that spare the hot endpoints marshmallow (service/api/schemas/requests.py, FAST) accept only what
marshmallow accepts, and return exactly what marshmallow returns."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from service.api.schemas import requests as schemas

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 70), st.floats(allow_nan=False), st.text(max_size=4))
VALUES = st.one_of(SCALARS, st.dictionaries(st.text(max_size=3), SCALARS, max_size=2),
                   st.lists(SCALARS, max_size=2))
KEYS = st.sampled_from(["state", "state_tag", "move", "seat", "version", "other"])
BODIES = st.dictionaries(KEYS, VALUES, max_size=5)


def marshmallow_load(schema: Any, body: dict[str, Any]) -> dict[str, Any] | None:
    try:
        loaded: dict[str, Any] = schema.load(body)
        return loaded
    except ValidationError:
        return None


@settings(max_examples=400)
@given(BODIES)
def test_the_fast_checks_agree_with_marshmallow(body: dict[str, Any]) -> None:
    for schema, quick in ((schemas.MOVE, schemas._fast_move), (schemas.LEGAL, schemas._fast_seat),
                          (schemas.VIEW, schemas._fast_seat), (schemas.SESSION_MOVE, schemas._fast_session_move)):
        fast = quick(body)
        if fast is not None:
            assert fast == marshmallow_load(schema, body), (schema, body)


def test_the_usual_bodies_take_the_fast_path() -> None:
    state, move = {"game": "femkort"}, {"seat": 0, "action": "play", "card": "QS"}
    assert schemas._fast_move({"state": state, "move": move}) == {"state": state, "state_tag": None, "move": move}
    assert schemas._fast_seat({"state": state, "state_tag": "t1.x", "seat": 2}) == {
        "state": state, "state_tag": "t1.x", "seat": 2}
    assert schemas._fast_session_move({"move": move, "version": 3}) == {"move": move, "version": 3}
    assert schemas._fast_session_move({"move": move, "version": -1}) is None  # marshmallow gives the message
