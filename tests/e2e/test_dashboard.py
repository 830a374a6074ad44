"""The dashboard (``sqlext serve --http-port``) in a real browser: headless
Chromium loads the page while Leaderboard votes flow; the page draws the
Leaderboard's graph and lists its procedures, windows, command log and
sessions; their counts move between two looks, and a screenshot is kept in
test-artifacts/dashboard.png."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sqlext.tools.bench.leaderboard_bench import generate_votes, load, send_pipelined
from tests.fixtures.servers import ROOT, ServerProcess

ARTIFACTS = ROOT / "test-artifacts"
_DASHBOARD = re.compile(r"dashboard on (http://\S+/)")
_RUNS = re.compile(r'data-key="public\.(\w+)".*?data-column="batches_run">(\d+)<')
_SLIDES = re.compile(r'data-key="public\.trending".*?data-column="slides">(\d+)<')
_LSN = re.compile(r'data-column="last_lsn">(\d+)<')


def chromium(url: str, *args: str) -> str:
    """What headless Chromium makes of the page after its scripts ran for
    3 s (virtual time: timers fire without waiting)."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    assert browser, "Chromium is missing: run scripts/install.sh"
    done = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--virtual-time-budget=3000", "--window-size=1280,1400", *args, url],
        capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


@pytest.fixture
def dashboard(server_factory: Callable[..., ServerProcess],
              tmp_path: Path) -> Iterator[tuple[str, ServerProcess]]:
    server = server_factory("--data-dir", str(tmp_path / "data"), "--http-port", "0")
    url = next(m.group(1) for line in server.log if (m := _DASHBOARD.search(line)))
    yield url, server


def test_page_shows_the_leaderboard_and_its_counts_move(
        dashboard: tuple[str, ServerProcess]) -> None:
    url, server = dashboard
    stop = threading.Event()
    with server.connect(autocommit=True) as conn:
        load(conn)
        votes = list(generate_votes(200_000))

        def vote() -> None:
            with server.connect(autocommit=True, application_name="voter") as voter:
                for start in range(0, len(votes), 500):
                    if stop.is_set():
                        return
                    send_pipelined(voter, votes[start:start + 500])

        voter = threading.Thread(target=vote)
        voter.start()
        try:
            page = chromium(url, "--dump-dom")
            first = dict(_RUNS.findall(page))
            second = chromium(url, "--dump-dom")
            ARTIFACTS.mkdir(exist_ok=True)
            shot = ARTIFACTS / "dashboard.png"
            shot.unlink(missing_ok=True)
            chromium(url, f"--screenshot={shot}")
        finally:
            stop.set()
            voter.join()
    assert {"validate", "count_votes", "remove_lowest"} <= first.keys()
    graph = page[page.index('<div id="graph">'):page.index("</svg>")]
    drawn = set(re.findall(r"<text[^>]*>([^<]+)</text>", graph))
    assert {"votes_in", "validate", "valid_votes", "trending", "count_votes"} <= drawn
    assert int(dict(_RUNS.findall(second))["validate"]) > int(first["validate"]) > 0
    assert int(_SLIDES.search(second)[1]) > int(_SLIDES.search(page)[1]) > 0
    assert int(_LSN.search(second)[1]) > int(_LSN.search(page)[1]) > 0
    assert 'data-column="application_name">voter<' in page
    assert shot.stat().st_size > 10_000


def test_the_page_is_read_only(dashboard: tuple[str, ServerProcess]) -> None:
    url, _ = dashboard
    request = urllib.request.Request(url, data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError, match="405"):
        urllib.request.urlopen(request, timeout=10)
    with pytest.raises(urllib.error.HTTPError, match="404"):
        urllib.request.urlopen(url + "nosuch", timeout=10)
    with urllib.request.urlopen(url + "state.json", timeout=10) as answer:
        assert answer.headers["Content-Type"] == "application/json"
