"""mqtts://USER:PASSWORD@HOST:PORT with a private CA (--ca-file), against mosquitto with TLS and passwords."""
import getpass
import json
import os
import shutil
import subprocess

import pytest

from tests.host.harness import MOSQUITTO, DaemonProc, PtyLink, free_port, wait_for
import paho.mqtt.client as mqtt
import ssl

pytestmark = pytest.mark.slow


def make_ca_and_cert(d):
    def run(*a):
        subprocess.run(a, cwd=d, check=True, capture_output=True)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=test-ca")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key",
        "-out", "server.csr", "-subj", "/CN=localhost")
    with open(os.path.join(d, "ext.cnf"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf")


@pytest.mark.skipif(not shutil.which("openssl") or not shutil.which("mosquitto_passwd"),
                    reason="needs openssl and mosquitto_passwd")
def test_daemon_over_tls_with_password(tmp_path):
    d = str(tmp_path)
    make_ca_and_cert(d)
    subprocess.run(["mosquitto_passwd", "-b", "-c", os.path.join(d, "pw"), "anna", "s3cr@t"],
                   check=True, capture_output=True)
    os.chmod(os.path.join(d, "pw"), 0o600)
    port = free_port()
    conf = os.path.join(d, "m.conf")
    with open(conf, "w") as f:
        # `user`: mosquitto started as root would drop to "mosquitto" and lose the test files.
        f.write("user %s\nlistener %d 127.0.0.1\nallow_anonymous false\npassword_file %s/pw\n"
                "cafile %s/ca.pem\ncertfile %s/server.pem\nkeyfile %s/server.key\n"
                % (getpass.getuser(), port, d, d, d, d))
    broker = subprocess.Popen([MOSQUITTO, "-c", conf], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    link = PtyLink(tmp_path / "ttyTABLE")
    url = "mqtts://anna:s3cr%%40t@127.0.0.1:%d" % port
    daemon = DaemonProc(link.path, url, "tls", tmp_path / "journal",
                        extra=["--ca-file", os.path.join(d, "ca.pem")]).start()
    got = {}
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.username_pw_set("anna", "s3cr@t")
    c.tls_set(ca_certs=os.path.join(d, "ca.pem"), cert_reqs=ssl.CERT_REQUIRED)
    c.on_connect = lambda cl, u, f, rc, p: cl.subscribe("billiards/#")
    c.on_message = lambda cl, u, m: got.__setitem__(m.topic, m.payload.decode())
    c.reconnect_delay_set(0.1, 0.5)
    try:
        c.connect_async("127.0.0.1", port)
        c.loop_start()
        wait_for(lambda: got.get("billiards/tls/status") == "online", 15, what="status over TLS")
        state = json.loads(wait_for(lambda: got.get("billiards/tls/state"), 5, what="state"))
        assert state["table"] == "tls"
    finally:
        c.loop_stop()
        daemon.stop()
        link.close()
        broker.terminate()
        broker.wait(10)
