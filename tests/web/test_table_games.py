"""Every game's table in Chromium, mid-match, as a seat and as a spectator, at 1366x768 and at 400x800.

Each game's session is brought to the middle of a match by seeded legal moves posted through the API, then its
pages are opened: the seat's hand (for a spectator, the seat to act) must be inside the viewport at both sizes,
the page must not be wider than the window, its text must hold no bracket, no brace and no state key as the state
spells it (snake_case), every legal move must have a control, and clicking moves on the seat's page must play them.
The screenshots go to a temporary directory (docs/screenshots/ for the docs' own with UPDATE_SCREENSHOTS=1).
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from service import engine
from tests.web.browsing import Shots, Tap, click, wait_version

SEED = "5eed" * 8
NAMES = ["Ann", "Bo", "Cy", "Dan", "Eve", "Flo", "Gus", "Hal", "Ida", "Jo"]
SIZES = {"wide": (1366, 768), "narrow": (400, 800)}
MID_MATCH_MOVES = 12
# The screenshots docs/table.md shows (written there with UPDATE_SCREENSHOTS=1).
DOC_SHOTS = {"klaberjass-seat-wide.png", "klaberjass-seat-narrow.png", "styrivolt-spectator-wide.png",
             "jewel-seat-narrow.png", "femkort-seat-wide.png", "styrivolt-result.png"}


def players_for(gid: str) -> int:
    game = engine.all_games()[gid]
    return 4 if game.min_players <= 4 <= game.max_players else game.min_players


class Session:
    """A session brought to mid-match through the API by seeded legal moves (the test's own bookkeeping)."""

    def __init__(self, client: FlaskClient, gid: str, players: int, options: dict[str, Any] | None = None) -> None:
        self.client = client
        created = client.post("/v1/sessions", json={"game": gid, "players": players, "seed": SEED,
                                                    "options": options or {}}).get_json()
        self.sid: str = created["id"]
        self.tokens: list[str] = [s["token"] for s in created["seats"]]
        self.players = players

    def answer(self, seat: int | None) -> dict[str, Any]:
        headers = {} if seat is None else {"Authorization": f"Bearer {self.tokens[seat]}"}
        got: dict[str, Any] = self.client.get(f"/v1/sessions/{self.sid}", headers=headers).get_json()
        return got

    def play(self, moves: int, rng: random.Random) -> None:
        for _ in range(moves):
            public = self.answer(None)
            if public["finished"]:
                return
            actor = public["to_act"][0]
            move = dict(rng.choice(self.answer(actor)["legal_moves"]))
            move.pop("ranges", None)
            posted = self.client.post(f"/v1/sessions/{self.sid}/moves", json={"move": move},
                                      headers={"Authorization": f"Bearer {self.tokens[actor]}"})
            assert posted.status_code == 200, posted.get_json()

    def play_until(self, reached: Callable[[dict[str, Any]], bool], rng: random.Random, limit: int) -> None:
        """Seeded legal moves until the public view is `reached` (within `limit` moves)."""
        for _ in range(limit):
            if reached(self.answer(None)["view"]):
                return
            self.play(1, rng)
        raise AssertionError(f"not reached in {limit} moves")

    def url(self, base: str, seat: int | None) -> str:
        names = ",".join(NAMES[: self.players])
        return f"{base}/table/{self.sid}?names={names}" + ("" if seat is None else f"#token={self.tokens[seat]}")


def set_viewport(driver: webdriver.Chrome, size: str) -> None:
    width, height = SIZES[size]
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})


def open_page(driver: webdriver.Chrome, url: str, version: int) -> None:
    driver.get("about:blank")  # a URL that differs only in its fragment would not load the page again
    driver.get(url)
    wait_version(driver, version, 5)


def snake_keys(value: Any) -> set[str]:
    """Every key of the view (at any depth) that is snake_case: none may appear in a person's page."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            if "_" in key:
                found.add(key)
            found |= snake_keys(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= snake_keys(inner)
    return found


def in_viewport(driver: webdriver.Chrome, selector: str) -> bool:
    return bool(driver.execute_script("""
        const node = document.querySelector(arguments[0]);
        if (!node) return false;
        const r = node.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
    """, selector))


def check_reads_as_words(driver: webdriver.Chrome, gid: str, view: dict[str, Any]) -> None:
    text = driver.execute_script("return document.body.innerText")
    assert "[" not in text and "{" not in text, (gid, text)
    shown = sorted(k for k in snake_keys(view) if k in text)
    assert not shown, (gid, shown)
    assert driver.execute_script("return document.documentElement.scrollWidth <= innerWidth"), (gid, "too wide")


def check_every_legal_move_has_a_control(driver: webdriver.Chrome, gid: str, legal: list[dict[str, Any]]) -> None:
    controls = {json.dumps(json.loads(e.get_attribute("data-move")), sort_keys=True)
                for e in driver.find_elements(By.CSS_SELECTOR, "#hand [data-move]")
                if e.is_displayed() and e.is_enabled()}
    missing = [m for m in legal if json.dumps(m, sort_keys=True) not in controls]
    assert not missing, (gid, missing)


def use_control(driver: webdriver.Chrome, move: dict[str, Any]) -> None:
    wanted = json.dumps(move, sort_keys=True)
    control = next(e for e in driver.find_elements(By.CSS_SELECTOR, "#hand [data-move]")
                   if json.dumps(json.loads(e.get_attribute("data-move")), sort_keys=True) == wanted)
    if control.tag_name == "form":
        control = control.find_element(By.CSS_SELECTOR, "button[type=submit]")
    click(driver, control)


@pytest.fixture(scope="module")
def client(server: tuple[str, Flask, Tap]) -> FlaskClient:
    return server[1].test_client()


@pytest.mark.parametrize("gid", sorted(engine.all_games()))
def test_a_mid_match_table_reads_as_a_card_table(server: tuple[str, Flask, Tap], client: FlaskClient,
                                                 browser: webdriver.Chrome, shots: Shots, gid: str) -> None:
    base = server[0]
    driver = browser
    session = Session(client, gid, players_for(gid))
    session.play(MID_MATCH_MOVES, random.Random(f"{gid}/{SEED}"))
    public = session.answer(None)
    assert not public["finished"], gid
    actor = public["to_act"][0]
    mine = session.answer(actor)
    version = mine["version"]

    open_page(driver, session.url(base, None), version)
    for size in SIZES:
        set_viewport(driver, size)
        name = f"{gid}-spectator-{size}.png"
        shots.save(driver, name, docs=name in DOC_SHOTS)
        assert in_viewport(driver, f'.seat[data-seat="{actor}"]'), (gid, size, "the seat to act is out of view")
        check_reads_as_words(driver, gid, public["view"])

    open_page(driver, session.url(base, actor), version)
    for size in SIZES:
        set_viewport(driver, size)
        name = f"{gid}-seat-{size}.png"
        shots.save(driver, name, docs=name in DOC_SHOTS)
        assert in_viewport(driver, "#hand .hand"), (gid, size, "the hand is out of view")
        check_reads_as_words(driver, gid, mine["view"])
        check_every_legal_move_has_a_control(driver, gid, mine["legal_moves"])

    # Up to three moves by clicks, as long as this seat is to act (a phase may follow another).
    rng = random.Random(gid)
    for _ in range(3):
        if actor not in mine["to_act"] or mine["finished"]:
            break
        move = rng.choice(mine["legal_moves"])
        use_control(driver, move)
        WebDriverWait(driver, 5, poll_frequency=0.02).until(
            lambda d: int(d.execute_script("return document.body.dataset.version")) > version,
            f"{gid}: clicking {move} did not play it")
        mine = session.answer(actor)
        version = mine["version"]
        wait_version(driver, version, 5)
        check_every_legal_move_has_a_control(driver, gid, mine["legal_moves"])
    set_viewport(driver, "wide")


def test_the_end_of_a_match_is_explained_in_words(server: tuple[str, Flask, Tap], client: FlaskClient,
                                                  browser: webdriver.Chrome, shots: Shots) -> None:
    """A one-deal Stýrivolt match: the result says who won and why the payoffs are what they are, and the
    chalk-board is drawn, not printed."""
    session = Session(client, "styrivolt", 4, {"deals": 1})
    session.play(500, random.Random("to the end"))
    public = session.answer(None)
    assert public["finished"]
    open_page(browser, session.url(server[0], None), public["version"])
    set_viewport(browser, "wide")
    shots.save(browser, "styrivolt-result.png", docs="styrivolt-result.png" in DOC_SHOTS)
    result = browser.find_element(By.CSS_SELECTOR, ".result").text
    assert result.startswith("The match is over"), result
    assert "Only crosses count" in result or "cross" in result, result
    assert browser.find_elements(By.CSS_SELECTOR, ".result .chalk svg")
    check_reads_as_words(browser, "styrivolt", public["view"])
    assert not browser.find_element(By.ID, "hand").is_displayed()


def test_suit_names_follow_the_chosen_faces(server: tuple[str, Flask, Tap], client: FlaskClient,
                                            browser: webdriver.Chrome) -> None:
    session = Session(client, "klaberjass", 4)
    session.play(MID_MATCH_MOVES, random.Random(f"klaberjass/{SEED}"))
    public = session.answer(None)
    german = {"C": "acorns", "D": "bells", "H": "hearts", "S": "leaves"}[public["view"]["trump"]]
    open_page(browser, session.url(server[0], None).replace("?", "?faces=german&"), public["version"])
    text = browser.find_element(By.ID, "table").text
    assert f"Trumps: {german}" in text, text
    assert not {"clubs", "diamonds", "spades"} & set(text.split()), text


def test_a_replay_before_the_end_and_a_bad_link_show_nothing_to_use(server: tuple[str, Flask, Tap],
                                                                    client: FlaskClient,
                                                                    browser: webdriver.Chrome) -> None:
    session = Session(client, "femkort", 3)
    browser.get(f"{server[0]}/table/{session.sid}/replay")
    WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "message").is_displayed())
    assert "not over" in browser.find_element(By.ID, "message").text
    assert not browser.find_element(By.ID, "controls").is_displayed()
    browser.get("about:blank")
    browser.get(f"{server[0]}/table/{session.sid}#token=not-a-token")
    WebDriverWait(browser, 5).until(lambda d: d.find_element(By.ID, "message").is_displayed())
    assert browser.find_element(By.ID, "message").text == "This seat's link is not valid for this session."
    assert not browser.find_element(By.ID, "moves").is_displayed()
    assert not browser.find_element(By.ID, "hand").is_displayed()


def test_davoserjazz_qabbalah_layout_is_drawn_as_rows_of_cards(server: tuple[str, Flask, Tap],
                                                               client: FlaskClient,
                                                               browser: webdriver.Chrome) -> None:
    """The last hand of the round is a layout, not tricks: each suit's row is drawn as its run of cards."""
    session = Session(client, "davoserjazz", 4)
    session.play_until(lambda view: any((view.get("layout") or {}).values()), random.Random("qabbalah"), 600)
    public = session.answer(None)
    open_page(browser, session.url(server[0], None), public["version"])
    rows = {s: r for s, r in public["view"]["layout"].items() if r}
    drawn = browser.find_elements(By.CSS_SELECTOR, ".panel .seat-value .card")
    assert len(drawn) == sum(high - low + 1 for low, high in rows.values()), (rows, len(drawn))
    check_reads_as_words(browser, "davoserjazz", public["view"])


def test_a_jewel_replay_shows_the_hands_melds_and_the_chart(server: tuple[str, Flask, Tap], client: FlaskClient,
                                                            browser: webdriver.Chrome, shots: Shots) -> None:
    """A deal's settlement is in the events of the move that ends it, which the replay has: the step that ends a
    Jewel deal shows each hand's melds and the chart of who pays whom."""
    session = Session(client, "jewel", 2)
    rng = random.Random("jewel chart")
    while not (public := session.answer(None))["finished"]:
        actor = public["to_act"][0]
        legal = [m for m in session.answer(actor)["legal_moves"] if m["action"] != "pack"]
        move = next((m for m in legal if m["action"] == "mid_pack"), None) or rng.choice(legal)
        posted = client.post(f"/v1/sessions/{session.sid}/moves", json={"move": move},
                             headers={"Authorization": f"Bearer {session.tokens[actor]}"})
        assert posted.status_code == 200, posted.get_json()
    last = public["version"]
    browser.get(f"{session.url(server[0], None).replace('?', '/replay?')}&step={last}")
    WebDriverWait(browser, 5).until(lambda d: d.execute_script("return document.body.dataset.step") == str(last))
    set_viewport(browser, "wide")
    shots.save(browser, "jewel-replay-chart.png")
    text = browser.find_element(By.ID, "table").text
    assert "settled" in text and "The chart" in text and "hand score" in text, text
    assert browser.find_elements(By.CSS_SELECTOR, "table.chart td")
    log = client.get(f"/v1/sessions/{session.sid}/log").get_json()
    replayed = client.post("/v1/games/jewel/replay", json=log["replay"])
    check_reads_as_words(browser, "jewel", replayed.get_json())  # the state's keys and the settlement's
