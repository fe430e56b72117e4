"""MQTT shell: paho-mqtt 2.x client that reconnects by itself and hands messages to the daemon.

Nothing here decides anything: callbacks only put ("connected" | "message", ...)
items on the daemon's queue, and the daemon publishes what its outputs return.
"""
import ssl
import urllib.parse

import paho.mqtt.client as mqtt


def parse_broker(url):
    """{"host","port","tls","username","password"} from mqtt://HOST:PORT or mqtts://USER:PASS@HOST:PORT."""
    if "://" not in url:
        url = "mqtt://" + url
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("mqtt", "mqtts", "tcp", "ssl"):
        raise ValueError("broker URL must start with mqtt:// or mqtts://, not %r" % (url,))
    tls = u.scheme in ("mqtts", "ssl")
    if not u.hostname:
        raise ValueError("broker URL has no host: %r" % (url,))
    port = u.port or (8883 if tls else 1883)
    user = urllib.parse.unquote(u.username) if u.username else None
    pw = urllib.parse.unquote(u.password) if u.password else None
    return {"host": u.hostname, "port": port, "tls": tls, "username": user, "password": pw}


class MqttShell:
    def __init__(self, broker, client_id, will, queue, subscriptions, ca_file=None, insecure=False):
        self.broker = broker
        self.queue = queue
        self.subs = list(subscriptions)
        self.connected = False
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                        clean_session=True)
        if will is not None:
            c.will_set(will[0], will[1], qos=1, retain=will[2])
        if broker.get("username"):
            c.username_pw_set(broker["username"], broker.get("password"))
        if broker.get("tls"):
            c.tls_set(ca_certs=ca_file, cert_reqs=ssl.CERT_NONE if insecure else ssl.CERT_REQUIRED)
            if insecure:
                c.tls_insecure_set(True)
        c.reconnect_delay_set(min_delay=0.2, max_delay=2)
        c.max_queued_messages_set(1000)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_connect_fail = self._on_connect_fail
        c.on_message = self._on_message
        self.client = c

    def start(self):
        self.client.connect_async(self.broker["host"], self.broker["port"], keepalive=15)
        self.client.loop_start()

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        if reason_code.is_failure:
            self.queue.put(("mqtt_error", str(reason_code)))
            return
        self.connected = True
        for t in self.subs:
            client.subscribe(t, qos=1)
        self.queue.put(("connected", None))

    def _on_connect_fail(self, client, userdata):
        self.queue.put(("mqtt_unreachable", "%s:%s" % (self.broker["host"], self.broker["port"])))

    def _on_disconnect(self, client, userdata, flags, reason_code, properties):
        self.connected = False
        self.queue.put(("disconnected", str(reason_code)))

    def _on_message(self, client, userdata, msg):
        self.queue.put(("message", (msg.topic, bytes(msg.payload))))

    def publish(self, messages, qos=1):
        """Publish (topic, payload, retain) triples; silently skipped while disconnected
        (the daemon republishes the whole state on reconnect)."""
        infos = []
        if not self.connected:
            return infos
        for topic, payload, retain in messages:
            try:
                infos.append(self.client.publish(topic, payload, qos=qos, retain=retain))
            except Exception:
                pass
        return infos

    def stop(self, last=(), timeout=2.0):
        """Publish `last` (e.g. status offline), wait for it, disconnect."""
        for info in self.publish(last):
            try:
                info.wait_for_publish(timeout)
            except Exception:
                pass
        try:
            self.client.disconnect()
        except Exception:
            pass
        self.client.loop_stop()
