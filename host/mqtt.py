"""MQTT shell: paho-mqtt 2.x client that reconnects by itself and hands messages to the daemon.

Nothing here judges anything: callbacks only put ("connected" | "message", ...) items on the
daemon's queue, and the daemon publishes what its outputs return. One thing is kept from the
daemon at the door: a command that was retained (`<table>/cmd/...` with the retain flag). The
broker hands a retained message to every new subscription, so a retained `new_game` would
replace the game in progress at every restart, reconnect or kick (issue 16); it is never
queued, it is cleared (an empty retained message on its topic, which the venue ACL lets the
table's daemon publish) and answered on `…/cmd/result` with why.

MQTT 5 first: its subscription options say whether a message was published retained even when
it arrives on a live subscription (Retain As Published: a retained command sent while the
daemon is connected, or replayed to the venue by a bridge, is recognised too), and No Local
keeps the daemon's own clearing from coming back to it. A broker that speaks only 3.1.1 (the
embedded amqtt) gets 3.1.1, where only the retained messages handed over at subscription time
carry the flag.

A connection the broker has stopped serving is reconnected (`STALL_S`): after a flood of
commands mosquitto 2.0 may drop messages to the daemon ("Outgoing messages are being dropped")
and then leave the connection alive (keepalive answered) but serving nothing either way, so the
table published no state and took no command for minutes (close-16, found by
bench_command_flood.py). A publish the broker has not acknowledged for STALL_S is the sign; the
socket is shut, and paho reconnects as after any network failure.

In MQTT 5 the daemon's session outlives a connection by SESSION_S. A wedged broker drops
QoS 1 messages to the daemon too (a player's command published while the flood still fills the
daemon's queue), yet counts them as sent; a clean reconnect would lose them for good. With the
session kept, the broker sends them again on the reconnect (its QoS 0 flood it does not keep),
as it does after any short network loss. Short, because a command kept longer than a player
waits for its answer would run when nobody expects it any more.
"""
import collections
import json
import logging
import socket
import ssl
import threading
import time
import urllib.parse

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from host.command_input import answer
from shared_rules.rules.messages import refusal

log = logging.getLogger("billiards.mqtt")

ECHO_S = 5.0           # MQTT 3.1.1: our own clearing comes back to us within this
STALL_S = 5.0          # a publish unacknowledged this long while connected: the connection is wedged
PENDING_KEPT = 2000    # publishes watched at most (paho queues 1000)
CONNACK_S = 5.0        # MQTT 5: a CONNECT neither answered nor refused this long: try 3.1.1
SESSION_S = 10         # MQTT 5: the broker keeps the daemon's session (its QoS 1 messages) this long


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
    def __init__(self, broker, client_id, will, queue, subscriptions, ca_file=None, insecure=False,
                 commands=None, mqtt5=True):
        """`commands`: the topic prefix of the table's commands (`billiards/t1/cmd/`); a retained
        message under it is never queued. `mqtt5`: try MQTT 5 first (False: a broker known to
        speak 3.1.1 only, e.g. the embedded amqtt, which never answers an MQTT 5 CONNECT with a
        will)."""
        self.broker = broker
        self.client_id = client_id
        self.will = will
        self.queue = queue
        self.subs = list(subscriptions)
        self.commands = commands
        self.ca_file = ca_file
        self.insecure = insecure
        self.connected = False
        self._clearing = {}            # topic -> until when our own clearing may come back (3.1.1)
        self._lock = threading.Lock()
        self._retired = None
        self._answered = False         # the broker answered this client's CONNECT (any answer)
        self._socket_since = None      # when the unanswered client's socket was first seen open
        self._pending = collections.deque()   # (monotonic time, MQTTMessageInfo) of QoS 1 publishes
        self._stopping = threading.Event()
        self.kicks = 0                 # reconnections forced because the broker stopped serving
        self._watch = None
        self.client = self._client(mqtt.MQTTv5 if mqtt5 else mqtt.MQTTv311)

    def _client(self, protocol):
        v5 = protocol == mqtt.MQTTv5
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=self.client_id,
                        protocol=protocol, clean_session=None if v5 else True)
        if self.will is not None:
            c.will_set(self.will[0], self.will[1], qos=1, retain=self.will[2])
        broker = self.broker
        if broker.get("username"):
            c.username_pw_set(broker["username"], broker.get("password"))
        if broker.get("tls"):
            c.tls_set(ca_certs=self.ca_file, cert_reqs=ssl.CERT_NONE if self.insecure else ssl.CERT_REQUIRED)
            if self.insecure:
                c.tls_insecure_set(True)
        c.reconnect_delay_set(min_delay=0.2, max_delay=2)
        c.max_queued_messages_set(1000)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_connect_fail = self._on_connect_fail
        c.on_message = self._on_message
        return c

    @property
    def v5(self):
        return self.client.protocol == mqtt.MQTTv5

    def start(self):
        properties = None
        if self.v5:
            properties = Properties(PacketTypes.CONNECT)
            properties.SessionExpiryInterval = SESSION_S
        # clean_start stays paho's default (clean on the first connection only): a reconnect
        # takes up the session the broker kept.
        self.client.connect_async(self.broker["host"], self.broker["port"], keepalive=15,
                                  properties=properties)
        self.client.loop_start()
        if self._watch is None:
            self._watch = threading.Thread(target=self._watch_stall, name="mqtt-stall", daemon=True)
            self._watch.start()

    # --- a connection the broker no longer serves --------------------------------

    def stalled(self, now=None):
        """Seconds the oldest publish the broker has not acknowledged has waited while connected
        (0: none). paho's own flag says what was acknowledged, so no callback can race it."""
        now = time.monotonic() if now is None else now
        with self._lock:
            while self._pending and self._pending[0][1].is_published():
                self._pending.popleft()
            oldest = self._pending[0][0] if self._pending else None
        return 0.0 if oldest is None or not self.connected else now - oldest

    def _watch_stall(self):
        while not self._stopping.wait(1.0):
            if self._connect_unanswered(time.monotonic()):
                self._retire(self.client)
                continue
            waited = self.stalled()
            if waited > STALL_S:
                self.kick("the broker acknowledged nothing for %.0f s" % waited)

    def _connect_unanswered(self, now):
        """An MQTT 5 CONNECT on an open socket that no answer came to for CONNACK_S. The embedded
        amqtt (3.1.1 only) closes the connection on a plain MQTT 5 CONNECT but says nothing at
        all to one that carries properties (the session expiry): the same broker, the same
        fallback."""
        if not self.v5 or self._answered or self._retired is not None:
            return False
        if self.client.socket() is None:
            self._socket_since = None
            return False
        if self._socket_since is None:
            self._socket_since = now
        return now - self._socket_since > CONNACK_S

    def kick(self, why):
        """Shut the socket: paho sees a broken connection and reconnects by itself."""
        log.warning("MQTT connection reconnected: %s", why)
        self.kicks += 1
        with self._lock:
            self._pending.clear()
        sock = self.client.socket()
        try:
            if sock is not None:
                sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def subscribe(self, topic):
        """One more subscription, now if connected and at every reconnect."""
        with self._lock:
            if topic in self.subs:
                return
            self.subs.append(topic)
        if self.connected:
            self.client.subscribe(topic, qos=1)

    def _is_command(self, topic):
        return bool(self.commands) and topic.startswith(self.commands) and topic != self.commands + "result"

    def _on_connect(self, client, userdata, flags, reason_code, properties):
        self._answered = True
        if reason_code.is_failure:
            if client is self.client and self.v5 and reason_code == "Unsupported protocol version":
                self._retire(client)
                return
            self.queue.put(("mqtt_error", str(reason_code)))
            return
        with self._lock:
            self._pending.clear()      # what paho sends again after a reconnect is not timed
        self.connected = True
        for t in self.subs:
            if self.v5 and self.commands and t.startswith(self.commands):
                client.subscribe(t, options=SubscribeOptions(qos=1, noLocal=True, retainAsPublished=True))
            else:
                client.subscribe(t, qos=1)
        self.queue.put(("connected", None))

    def _retire(self, client):
        self._retired = client
        threading.Thread(target=self._fall_back, name="mqtt-3.1.1", daemon=True).start()

    def _fall_back(self):
        """The broker does not speak MQTT 5 (it said so, or closed the connection without an
        answer): the same client, in 3.1.1 (a new paho client: a client's protocol is fixed
        when it is made)."""
        old = self._retired
        old.loop_stop()
        try:
            old.disconnect()
        except Exception:
            pass
        self.client = self._client(mqtt.MQTTv311)
        log.info("MQTT broker %s:%s speaks MQTT 3.1.1 only: retained commands are recognised when "
                 "they are handed over at subscription", self.broker["host"], self.broker["port"])
        self.start()

    def _on_connect_fail(self, client, userdata):
        self.queue.put(("mqtt_unreachable", "%s:%s" % (self.broker["host"], self.broker["port"])))

    def _on_disconnect(self, client, userdata, flags, reason_code, properties):
        if client is self._retired:            # the MQTT 5 client given up for a 3.1.1 one
            return
        if client is self.client and self.v5 and not self._answered:
            self._retire(client)
            return
        self.connected = False
        self.queue.put(("disconnected", str(reason_code)))

    def _on_message(self, client, userdata, msg):
        payload = bytes(msg.payload)
        if self._is_command(msg.topic):
            if msg.retain:
                self._refuse_retained(msg.topic, payload)
                return
            if not payload and self._own_clearing(msg.topic):
                return
        self.queue.put(("message", (msg.topic, payload)))

    def _refuse_retained(self, topic, payload):
        """Never queued. Cleared, unless this is the empty message that clears it; answered."""
        if not payload:
            return
        log.warning("a retained command on %s was not executed and is cleared (retained commands "
                    "would replay at every reconnect)", topic[:200])
        if not self.v5:
            with self._lock:
                self._clearing[topic] = time.monotonic() + ECHO_S
        name = topic[len(self.commands):][:64]
        self.publish([(topic, b"", True),
                      (self.commands + "result", json.dumps(answer(name, refusal("host.retained"))), False)])

    def _own_clearing(self, topic):
        """MQTT 3.1.1 has no No Local: the empty message that cleared a retained command comes
        back to the daemon as a live one, which must not run as that command with `{}`."""
        with self._lock:
            until = self._clearing.pop(topic, None)
        return until is not None and time.monotonic() < until

    def publish(self, messages, qos=1):
        """Publish (topic, payload, retain) triples; silently skipped while disconnected
        (the daemon republishes the whole state on reconnect)."""
        infos = []
        if not self.connected:
            return infos
        now = time.monotonic()
        for topic, payload, retain in messages:
            try:
                info = self.client.publish(topic, payload, qos=qos, retain=retain)
            except Exception:
                continue
            infos.append(info)
            if qos and info.rc == mqtt.MQTT_ERR_SUCCESS:
                with self._lock:
                    if len(self._pending) < PENDING_KEPT:
                        self._pending.append((now, info))
        return infos

    def stop(self, last=(), timeout=2.0):
        """Publish `last` (e.g. status offline), wait for it, disconnect."""
        self._stopping.set()
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
