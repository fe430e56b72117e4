"""mqtts://USER:PASSWORD@HOST:PORT with a private CA (--ca-file), against mosquitto with TLS and passwords."""
import json
import shutil

import pytest

from tests.host.harness import DaemonProc, PtyLink, TlsBroker, wait_for

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not shutil.which("openssl") or not shutil.which("mosquitto_passwd"),
                    reason="needs openssl and mosquitto_passwd")
def test_daemon_over_tls_with_password(tmp_path):
    tls = TlsBroker(tmp_path, "anna", "s3cr@t")
    port, got = tls.port, tls.got
    link = PtyLink(tmp_path / "ttyTABLE")
    url = "mqtts://anna:s3cr%%40t@127.0.0.1:%d" % port
    daemon = DaemonProc(link.path, url, "tls", tmp_path / "journal",
                        extra=["--ca-file", tls.ca]).start()
    try:
        wait_for(lambda: got.get("billiards/tls/status") == "online", 15, what="status over TLS")
        state = json.loads(wait_for(lambda: got.get("billiards/tls/state"), 5, what="state"))
        assert state["table"] == "tls"
    finally:
        daemon.stop()
        link.close()
        tls.stop()
