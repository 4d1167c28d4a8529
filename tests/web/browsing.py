"""What the browser tests share: a served app whose traffic to one tab can be kept, Debian's headless Chromium
driven through its chromedriver, waiting on a page, and where screenshots go.

Screenshots go to a temporary directory; with UPDATE_SCREENSHOTS=1 the ones the docs show are written into
docs/screenshots/ instead (the same seeds and names give the same pictures byte for byte on one machine).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from flask import Flask
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
DOC_SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SPECTATOR = "spectator"  # the value of the header the spectator's tab adds to every request it makes
CARD = re.compile(r'"([2-9TJQKA][CDHS])"')


def updating_docs() -> bool:
    """UPDATE_SCREENSHOTS=1 asks for the docs' own screenshots to be written again."""
    return os.environ.get("UPDATE_SCREENSHOTS", "") == "1"


class Shots:
    """Where a test's screenshots go: every one into a temporary directory, and those the docs show also into
    docs/screenshots/ when UPDATE_SCREENSHOTS=1."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch

    def save(self, driver: webdriver.Chrome, name: str, *, docs: bool = False) -> Path:
        path = (DOC_SHOTS if docs and updating_docs() else self.scratch) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(path))
        return path


class Tap:
    """WSGI middleware that keeps every byte answered to the spectator's tab (its requests carry a header
    that only that tab sends), streamed bodies included, as they are sent."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.lock = threading.Lock()
        self.responses: list[tuple[str, str, bytearray]] = []  # (path, content type, body so far)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("HTTP_X_TABLE_TEST") != SPECTATOR:
            return self.app(environ, start_response)
        record: list[Any] = [environ.get("PATH_INFO", ""), "", bytearray()]

        def tapped_start(status: str, headers: list[tuple[str, str]], *rest: Any) -> Any:
            record[1] = dict(headers).get("Content-Type", "")
            return start_response(status, headers, *rest)

        with self.lock:
            self.responses.append(record)  # type: ignore[arg-type]
        return self._copy(self.app(environ, tapped_start), record[2])

    def _copy(self, body: Iterable[bytes], into: bytearray) -> Iterator[bytes]:
        try:
            for chunk in body:
                with self.lock:
                    into.extend(chunk)
                yield chunk
        finally:
            close = getattr(body, "close", None)
            if close:
                close()

    def json_documents(self) -> list[tuple[str, Any]]:
        """Every JSON document the spectator received: whole JSON bodies and each event's data."""
        out = []
        with self.lock:
            records = [(p, t, bytes(b)) for p, t, b in self.responses]
        for path, kind, body in records:
            if kind.startswith("application/json") or kind.startswith("application/problem+json"):
                out.append((path, json.loads(body)))
            elif kind.startswith("text/event-stream"):
                out += [(path, json.loads(line[6:])) for line in body.decode().splitlines() if line.startswith("data: ")]
        return out

    def raw(self) -> bytes:
        with self.lock:
            return b"".join(bytes(b) for _, _, b in self.responses)



def start_browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=420,1000", "--disable-extensions", "--no-first-run", "--hide-scrollbars"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))  # no selenium-manager


def cards_in(value: Any) -> set[str]:
    return set(CARD.findall(json.dumps(value)))


def wait_version(driver: webdriver.Chrome, version: int, timeout: float) -> None:
    WebDriverWait(driver, timeout, poll_frequency=0.02).until(
        lambda d: d.execute_script("return document.body.dataset.version") == str(version))


def click(driver: webdriver.Chrome, element: Any) -> None:
    """A real click, on the element scrolled to the middle of the window (as a person scrolls to it first)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def wait_live(driver: webdriver.Chrome) -> None:
    """Until the page follows the event stream."""
    WebDriverWait(driver, 5, poll_frequency=0.02).until(
        lambda d: d.execute_script("return document.body.dataset.live") == "true")


def spectator_dom_cards(driver: webdriver.Chrome) -> set[str]:
    html = driver.execute_script("return document.documentElement.outerHTML")
    return set(re.findall(r'data-card="([^"]+)"', html)) | set(CARD.findall(html))


