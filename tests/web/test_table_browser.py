"""The table view in a real browser: Debian's headless Chromium, driven by Selenium through the system's
chromedriver (tests/run.sh installs both with apt-get; nothing is downloaded at run time).

Two seats' pages play a whole two-player Femkort deal by clicks while a spectator's page watches. Checked:
the spectator's page shows each move within a second; a refused move shows the referee's sentence; no
response the spectator's page received and nothing in its DOM ever holds a card that is in a hand at that
moment, nor one of the undealt cards; the replay steps through the finished match; /docs renders. It takes
the screenshots that the README shows (written into docs/screenshots/ only with UPDATE_SCREENSHOTS=1). Then,
for every game, the page of the seat to act offers each of its legal moves as a control, and using one plays it.
"""
from __future__ import annotations

import json
import time
from typing import Any

from flask import Flask
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from service.engine.cards import STANDARD_PACK
from tests.web.browsing import (CARD, SPECTATOR, Shots, Tap, cards_in, click, spectator_dom_cards, wait_live,
                                wait_version)

SEED = "c0ffee" * 6
NAMES = "Ann,Bo"


class Api:
    """The session as the service's API tells it, for the test's own bookkeeping (never through a page)."""

    def __init__(self, app: Flask) -> None:
        self.client = app.test_client()
        created = self.client.post("/v1/sessions", json={"game": "femkort", "players": 2, "seed": SEED}).get_json()
        self.sid = created["id"]
        self.tokens = [s["token"] for s in created["seats"]]

    def seat(self, seat: int) -> dict[str, Any]:
        answer: dict[str, Any] = self.client.get(f"/v1/sessions/{self.sid}",
                                                 headers={"Authorization": f"Bearer {self.tokens[seat]}"}).get_json()
        return answer

    def hands(self) -> tuple[int, set[str]]:
        """The version and every card in a hand now (each seat sees its own)."""
        views = [self.seat(s) for s in range(2)]
        assert views[0]["version"] == views[1]["version"]
        return views[0]["version"], {c for v in views for c in v["view"]["hands"][v["seat"]]}


def test_a_femkort_deal_played_by_clicks(server: tuple[str, Flask, Tap], browser: webdriver.Chrome,
                                         shots: Shots) -> None:
    base, app, tap = server
    api = Api(app)
    driver = browser

    windows = {}
    for seat in (0, 1):
        driver.switch_to.new_window("tab")
        driver.get(f"{base}/table/{api.sid}?names={NAMES}#token={api.tokens[seat]}")
        wait_live(driver)
        windows[seat] = driver.current_window_handle
    driver.switch_to.new_window("tab")
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"X-Table-Test": SPECTATOR}})
    driver.get(f"{base}/table/{api.sid}?names={NAMES}")
    windows["spectator"] = driver.current_window_handle
    wait_version(driver, 0, 5)
    wait_live(driver)

    version, in_hands = api.hands()
    dealt = set(in_hands)
    hidden_by_version = {version: set(in_hands)}
    latencies = []
    refused = []

    while True:
        answers = [api.seat(s) for s in range(2)]
        if answers[0]["finished"]:
            break
        actor = answers[0]["to_act"][0]
        legal = {m["card"] for m in answers[actor]["legal_moves"]}
        hand = answers[actor]["view"]["hands"][actor]
        driver.switch_to.window(windows[actor])
        wait_version(driver, version, 5)
        wrong = [c for c in hand if c not in legal]
        if wrong and not refused:
            refused.append(check_refusal(driver, api, actor, wrong[0], version, shots))
        if version == 0:
            check_not_your_turn(driver, windows[1 - actor], api, 1 - actor, version)
            driver.switch_to.window(windows[actor])
        card = sorted(legal)[0]
        started = time.monotonic()
        click(driver, driver.find_element(By.CSS_SELECTOR, f'button.hand-card.legal[data-card="{card}"]'))
        driver.switch_to.window(windows["spectator"])
        wait_version(driver, version + 1, 1.0)  # within a second of the click, or the test fails here
        latencies.append(time.monotonic() - started)
        version, in_hands = api.hands()
        hidden_by_version[version] = set(in_hands)
        shown = spectator_dom_cards(driver)
        assert not shown & in_hands, f"the spectator's page shows a card in a hand: {shown & in_hands}"
        assert not shown & (set(STANDARD_PACK) - dealt), "the spectator's page shows an undealt card"
        if version == 3:
            shots.save(driver, "spectator.png", docs=True)
            driver.switch_to.window(windows[1])
            wait_version(driver, version, 2)
            shots.save(driver, "seat.png", docs=True)

    assert version == 10 and refused, (version, refused)
    print(f"spectator page behind a click: max {max(latencies) * 1000:.0f} ms, "
          f"median {sorted(latencies)[len(latencies) // 2] * 1000:.0f} ms over {len(latencies)} moves")
    assert max(latencies) < 1.0, latencies
    check_spectator_traffic(tap, hidden_by_version, set(STANDARD_PACK) - dealt)

    driver.switch_to.window(windows[0])
    wait_version(driver, version, 2)
    assert driver.execute_script("return document.body.dataset.finished") == "true"
    assert "The match is over" in driver.find_element(By.CSS_SELECTOR, ".status").text
    check_replay(driver, base, api, shots)
    check_docs(driver, base, shots)


def check_refusal(driver: webdriver.Chrome, api: Api, seat: int, card: str, version: int, shots: Shots) -> str:
    """Clicking a card the rules do not allow posts it; the referee's sentence is shown, nothing moves."""
    expected = api.client.post(f"/v1/sessions/{api.sid}/moves", json={
        "move": {"seat": seat, "action": "play", "card": card}, "version": version},
        headers={"Authorization": f"Bearer {api.tokens[seat]}"}).get_json()
    assert expected["code"] == "illegal_move"
    assert not driver.find_element(By.ID, "message").is_displayed()  # a new version clears an earlier refusal
    click(driver, driver.find_element(By.CSS_SELECTOR, f'button.hand-card[data-card="{card}"]'))
    message = WebDriverWait(driver, 3).until(lambda d: d.find_element(By.ID, "message").text or None)
    assert message == expected["detail"]
    assert api.hands()[0] == version
    shots.save(driver, "refused.png", docs=True)
    return message


def check_not_your_turn(driver: webdriver.Chrome, window: str, api: Api, seat: int, version: int) -> None:
    driver.switch_to.window(window)
    wait_version(driver, version, 5)
    click(driver, driver.find_elements(By.CSS_SELECTOR, "button.hand-card")[0])
    message = WebDriverWait(driver, 3).until(lambda d: d.find_element(By.ID, "message").text or None)
    assert "turn" in message.lower(), message
    assert api.hands()[0] == version


def check_spectator_traffic(tap: Tap, hidden_by_version: dict[int, set[str]], undealt: set[str]) -> None:
    documents = tap.json_documents()
    views = [doc for path, doc in documents if isinstance(doc, dict) and "view" in doc and "version" in doc]
    assert {v["version"] for v in views} >= set(hidden_by_version), "the spectator's stream missed a version"
    for doc in views:
        assert doc["seat"] is None and doc["legal_moves"] == []
        leaked = cards_in(doc) & hidden_by_version[doc["version"]]
        assert not leaked, f"version {doc['version']}: the spectator received cards in a hand: {leaked}"
    for _, doc in documents:
        assert not cards_in(doc) & undealt, "the spectator received an undealt card"
    assert not set(CARD.findall(tap.raw().decode(errors="replace"))) & undealt


def check_replay(driver: webdriver.Chrome, base: str, api: Api, shots: Shots) -> None:
    driver.get(f"{base}/table/{api.sid}/replay?names={NAMES}")
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("return document.body.dataset.step") == "0")
    for step in (1, 2, 3):
        driver.find_element(By.ID, "next").click()
        WebDriverWait(driver, 5).until(lambda d, s=step: d.execute_script("return document.body.dataset.step") == str(s))
    assert "Move 3 of 10" in driver.find_element(By.ID, "step").text
    assert len(driver.find_elements(By.CSS_SELECTOR, ".felt .play .card")) >= 1
    shots.save(driver, "replay.png", docs=True)
    driver.find_element(By.ID, "last").click()
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("return document.body.dataset.step") == "10")
    assert "The match is over" in driver.find_element(By.CSS_SELECTOR, ".status").text


def check_docs(driver: webdriver.Chrome, base: str, shots: Shots) -> None:
    driver.set_window_size(1100, 900)
    driver.get(f"{base}/docs")
    WebDriverWait(driver, 15).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".opblock-summary"))
    assert "Card Referee" in driver.find_element(By.CSS_SELECTOR, ".info .title").text
    assert len(driver.find_elements(By.CSS_SELECTOR, ".opblock")) >= 10
    shots.save(driver, "docs.png", docs=True)
    driver.get(f"{base}/games/femkort")
    assert driver.find_element(By.TAG_NAME, "h1").text.startswith("Femkort")


def test_every_game_offers_each_legal_move_as_a_control(server: tuple[str, Flask, Tap],
                                                         browser: webdriver.Chrome) -> None:
    """For every game, the page of the seat to act has a control for each of its legal moves (a legal card of
    its hand, or a button or a small form carrying the move), and using one plays it."""
    from service import engine

    base, app, _ = server
    client = app.test_client()
    driver = browser
    driver.switch_to.new_window("tab")
    driver.set_window_size(420, 1000)
    driver.get_log("browser")  # drained: the refusals of the other test are logged as failed requests
    for gid, game in engine.all_games().items():
        players = min(max(3, game.min_players), game.max_players)
        created = client.post("/v1/sessions", json={"game": gid, "players": players, "seed": SEED}).get_json()
        sid, tokens = created["id"], [s["token"] for s in created["seats"]]
        actor = client.get(f"/v1/sessions/{sid}").get_json()["to_act"][0]
        legal = client.get(f"/v1/sessions/{sid}", headers={"Authorization": f"Bearer {tokens[actor]}"}).get_json()
        driver.get(f"{base}/table/{sid}#token={tokens[actor]}")
        driver.refresh()  # the same page with another fragment is not loaded again by itself
        wait_version(driver, 0, 5)
        wait_live(driver)
        hand = legal["view"]["hands"][actor] or []  # Tomato decides blind: no hand shown yet
        controls = {json.dumps(json.loads(e.get_attribute("data-move")), sort_keys=True): e
                    for e in driver.find_elements(By.CSS_SELECTOR, "[data-move]")}
        for move in legal["legal_moves"]:
            plain = set(move) <= {"seat", "action", "card"} and move.get("card") in hand
            if plain:
                assert driver.find_elements(By.CSS_SELECTOR, f'button.hand-card.legal[data-card="{move["card"]}"]'), \
                    (gid, move)
            else:
                assert json.dumps(move, sort_keys=True) in controls, (gid, move, list(controls))
        first = legal["legal_moves"][0]
        if set(first) <= {"seat", "action", "card"} and first.get("card") in hand:
            click(driver, driver.find_element(By.CSS_SELECTOR, f'button.hand-card.legal[data-card="{first["card"]}"]'))
        else:
            control = controls[json.dumps(first, sort_keys=True)]
            click(driver, control.find_element(By.TAG_NAME, "button") if control.tag_name == "form" else control)
        try:
            wait_version(driver, 1, 5)
        except TimeoutException:
            raise AssertionError(f"{gid}: using the control of {first} did not play it "
                                 f"({driver.find_element(By.ID, 'message').text!r})") from None
        severe = [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        assert not severe, (gid, severe)



def test_a_clocked_session_shows_its_clocks_and_a_seat_can_concede(server: tuple[str, Flask, Tap],
                                                                   browser: webdriver.Chrome) -> None:
    """A session with a time control: each seat's bank, the running seat's time for this move counting down,
    who is connected; and a seat's page can concede (here under the forfeit policy: the match ends)."""
    base, app, _ = server
    client = app.test_client()
    created = client.post("/v1/sessions", json={"game": "femkort", "players": 2, "seed": SEED, "clock": {
        "move_ms": 60_000, "bank_ms": 120_000, "increment_ms": 1_000}}).get_json()
    sid, tokens = created["id"], [s["token"] for s in created["seats"]]
    actor = client.get(f"/v1/sessions/{sid}").get_json()["to_act"][0]
    driver = browser
    driver.switch_to.new_window("tab")
    driver.get(f"{base}/table/{sid}?names={NAMES}#token={tokens[actor]}")
    wait_live(driver)
    seat = f'.seat[data-seat="{actor}"]'
    WebDriverWait(driver, 5).until(lambda d: d.find_elements(By.CSS_SELECTOR, f"{seat} .presence.on"))
    banks = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".clock .bank")]
    assert len(banks) == 2 and banks[1 - actor] == "2:00", banks
    before = driver.find_element(By.CSS_SELECTOR, f"{seat} .clock .deadline").text
    assert before in ("1:00", "0:59"), before
    WebDriverWait(driver, 4).until(
        lambda d: d.find_element(By.CSS_SELECTOR, f"{seat} .clock .deadline").text not in (before, "1:00"))
    click(driver, driver.find_element(By.CSS_SELECTOR, ".give-up summary"))
    click(driver, driver.find_element(By.ID, "concede"))
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("return document.body.dataset.finished") == "true")
    status = driver.find_element(By.CSS_SELECTOR, ".result").text
    assert "by a concession" in status and "forfeited" in status, status
    assert client.get(f"/v1/sessions/{sid}").get_json()["result"]["forfeited"] == actor
    driver.get(f"{base}/table/{sid}/replay?names={NAMES}")  # no move was made: the concession is the one step
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("return document.body.dataset.step") == "0")
    click(driver, driver.find_element(By.ID, "last"))
    WebDriverWait(driver, 5).until(lambda d: d.execute_script("return document.body.dataset.step") == "1")
    assert driver.find_element(By.ID, "step").text.startswith("The end:")
    assert "by a concession" in driver.find_element(By.CSS_SELECTOR, ".result").text
