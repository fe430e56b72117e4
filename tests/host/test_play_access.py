"""The phone page's access token (kept beside the journal) and the per-client rate limit."""
import os
import stat

from host.web.access import RateLimiter, TokenStore, play_url, token_path


def test_token_is_made_once_private_and_kept_across_restarts(tmp_path):
    store = TokenStore(tmp_path / "journal", "t1")
    token = store.current()
    path = token_path(tmp_path / "journal", "t1")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert len(token) >= 32 and token == store.current()
    assert TokenStore(tmp_path / "journal", "t1").current() == token        # a restart keeps it
    assert TokenStore(tmp_path / "journal", "t2").current() != token        # one per table
    assert store.check(token)
    assert not store.check(token + "x") and not store.check("") and not store.check(None)
    assert not store.check(TokenStore(tmp_path / "journal", "t2").current())


def test_rotation_by_another_process_is_seen_at_once(tmp_path):
    running = TokenStore(tmp_path, "t1")
    old = running.current()
    new = TokenStore(tmp_path, "t1").rotate()           # `billiards token --rotate`
    assert new != old
    assert running.check(new) and not running.check(old)
    assert stat.S_IMODE(os.stat(running.path).st_mode) == 0o600


def test_a_damaged_token_file_is_replaced_not_trusted(tmp_path):
    path = token_path(tmp_path, "t1")
    for junk in (b"", b"short\n", b"\xff\xfe not a token at all \x00\n"):
        with open(path, "wb") as f:
            f.write(junk)
        store = TokenStore(tmp_path, "t1")
        token = store.current()
        assert len(token) >= 32 and store.check(token) and not store.check(junk.decode("latin-1").strip())


def test_rate_limit_is_a_bucket_per_client():
    now = [100.0]
    rl = RateLimiter(rate=2.0, burst=5, max_clients=3, clock=lambda: now[0])
    assert [rl.allow("a") for _ in range(7)] == [True] * 5 + [False] * 2
    assert rl.allow("b")                                 # another phone is not held up
    assert rl.retry_after("a") == 1
    now[0] += 0.5                                        # one request's worth refilled
    assert rl.allow("a") and not rl.allow("a")
    now[0] += 100                                        # refills up to the burst, no further
    assert [rl.allow("a") for _ in range(6)] == [True] * 5 + [False]
    for c in ("c", "d", "e"):                            # bounded memory: the oldest are forgotten
        rl.allow(c)
    assert len(rl._buckets) <= 3


def test_play_url_keeps_the_token_in_the_fragment():
    assert play_url("http://10.0.0.5:8080/", "abc") == "http://10.0.0.5:8080/play#t=abc"
    assert play_url("http://10.0.0.5:8080") == "http://10.0.0.5:8080/play"
