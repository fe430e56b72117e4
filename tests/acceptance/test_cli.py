"""CONTRACT section 3: the `billiards` command (run flags, default broker, mqtts://, replay)."""
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from tests.host.harness import ROOT, wait_for
from tests.acceptance.helpers import Table

pytestmark = pytest.mark.slow
HERE = pathlib.Path(__file__).resolve().parent


def billiards():
    exe = pathlib.Path(sys.executable).parent / "billiards"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "host.cli"]


def test_installed_command_and_run_flags():
    assert (pathlib.Path(sys.executable).parent / "billiards").exists(), "no installed `billiards`"
    out = subprocess.run(billiards() + ["run", "--help"], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    for flag in ("--serial", "--broker", "--table", "--journal"):
        assert flag in out.stdout
    out = subprocess.run(billiards() + ["--help"], capture_output=True, text=True, timeout=30)
    assert "run" in out.stdout and "replay" in out.stdout


def test_bad_broker_url_is_refused():
    out = subprocess.run(billiards() + ["run", "--serial", "loop://", "--broker", "http://x:1",
                                        "--table", "b1", "--journal", "/tmp/none"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "broker" in out.stderr.lower()


def test_replay_of_a_missing_file_fails_cleanly(tmp_path):
    out = subprocess.run(billiards() + ["replay", str(tmp_path / "none.jsonl")],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode != 0 and "Traceback" not in out.stderr


def _unshare_ok():
    if not shutil.which("unshare"):
        return False
    r = subprocess.run(["unshare", "-rn", "true"], capture_output=True)
    return r.returncode == 0


@pytest.mark.skipif(not _unshare_ok(), reason="needs `unshare -rn` to get a private 127.0.0.1:1883")
@pytest.mark.parametrize("mode", ["existing", "embedded"])
def test_no_broker_option_uses_or_starts_127_0_0_1_1883(tmp_path, mode):
    """Inside a private network namespace, so the machine's own broker on 1883 is never touched."""
    script = "ip link set lo up && exec %s %s %s %s" % (sys.executable, HERE / "ns_default_broker.py",
                                                     mode, tmp_path)
    out = subprocess.run(["unshare", "-rn", "sh", "-c", script], capture_output=True, text=True,
                         timeout=60, cwd=str(ROOT))
    assert out.stdout.strip().endswith("OK"), out.stdout + out.stderr


@pytest.mark.skipif(not shutil.which("openssl") or not shutil.which("mosquitto_passwd"),
                    reason="needs openssl and mosquitto_passwd")
def test_mqtts_user_password(tmp_path, sub):
    from tests.host.harness import TlsBroker
    tls = TlsBroker(tmp_path, "ref", "pa:ss")
    port, got, ca = tls.port, tls.got, tls.ca
    tables = []
    try:
        class FakeBroker:
            url = "mqtts://ref:pa%%3Ass@127.0.0.1:%d" % port
        t = Table(tmp_path, FakeBroker, sub, table="tls1", extra=["--ca-file", ca])
        tables.append(t)
        t.start(wait_state=False)
        wait_for(lambda: got.get("billiards/tls1/status") == "online", 20, what="online over TLS")
        state = json.loads(wait_for(lambda: got.get("billiards/tls1/state"), 10))
        assert state["table"] == "tls1"
        # A wrong password never gets the daemon on.
        class WrongPw:
            url = "mqtts://ref:wrong@127.0.0.1:%d" % port
        t2 = Table(tmp_path, WrongPw, sub, table="tls2", extra=["--ca-file", ca])
        tables.append(t2)
        t2.start(wait_state=False)
        import time
        time.sleep(2.0)
        assert "billiards/tls2/status" not in got
        assert t2.proc.proc.poll() is None, "a refused login must not kill the daemon"
    finally:
        for t in tables:
            t.stop()
        tls.stop()
