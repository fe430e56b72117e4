"""The bar-TV page served by a running daemon (`--http`), while a game is driven through the
table board and MQTT commands: what a player sees on the TV, read from the page's DOM."""
import json
import os

import pytest

from cdp import CHROMIUM, Browser
from shared_rules.link.names import MOTION, POCKET, RAIL
from tests.host.harness import DaemonProc, FakeBoard, PtyLink, Subscriber, free_port, wait_for
from test_tv_page import shown

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs chromium (apt-get install -y chromium)"),
]


def shot(board, sub, n, rails=2, pocketed=()):
    board.push(MOTION, 0, 1)
    for r in range(rails):
        board.push(RAIL, r % 6, 20000)
    for pocket, ball in pocketed:
        board.push(POCKET, pocket, ball)
    board.push(MOTION, 0, 0)
    return wait_for(lambda: (sub.state("t1") or {}).get("shot") == n and sub.state("t1"), 10,
                    what="shot %d judged" % n)


def test_a_nine_ball_game_played_on_the_table_shows_on_the_tv(tmp_path, broker):
    sub = Subscriber(broker.port)
    link = PtyLink(tmp_path / "ttyTABLE")
    board = FakeBoard(link)
    http = free_port()
    d = DaemonProc(link.path, broker.url, "t1", tmp_path / "journal",
                   extra=["--http", str(http), "--players", "Anna,Bob"]).start()
    browser = Browser(str(tmp_path / "profile"))
    try:
        wait_for(lambda: (sub.state("t1") or {}).get("link", {}).get("state") == "up", 15, what="link")
        sub.publish("billiards/t1/cmd/new_game", json.dumps({"game": "nine-ball",
                                                             "players": ["Anna", "Bob"]}))
        wait_for(lambda: (sub.state("t1") or {}).get("game") == "nine-ball", 10, what="nine-ball")
        browser.open("http://127.0.0.1:%d/" % http)
        start = shown(browser, 0)
        assert start["names"] == ["Anna", "Bob"] and start["balls"] == list(range(1, 10))
        assert start["shooting"] == [True, False]

        shot(board, sub, 1, rails=12, pocketed=[(2, 2)])          # legal break, the 2 drops
        s1 = shown(browser, 1)
        assert 2 not in s1["balls"] and s1["shooting"] == [True, False]

        shot(board, sub, 2, rails=2, pocketed=[(5, 0)])           # Anna scratches
        s2 = shown(browser, 2)
        assert "cue ball pocketed" in s2["foul"] and "Anna" in s2["foul"]
        assert "Bob" in s2["bih"] and s2["shooting"] == [False, True]
        if os.environ.get("BILLIARDS_TV_SCREENSHOT"):     # the README's picture
            browser.screenshot(os.environ["BILLIARDS_TV_SCREENSHOT"])

        shot(board, sub, 3, rails=3, pocketed=[(0, 1), (3, 9)])   # Bob: the 1, then the 9 drops
        s3 = shown(browser, 3)
        assert s3["winner"] == "Bob" and s3["scores"] == ["0", "1"] and s3["foul"] is None
    finally:
        browser.close()
        d.stop()
        board.stop()
        link.close()
        sub.close()
