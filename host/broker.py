"""Find an MQTT broker on 127.0.0.1:1883, or start an embedded one (amqtt) in a thread."""
import asyncio
import socket
import threading


def listening(host, port, timeout=0.5):
    """True if something accepts TCP connections at host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


class EmbeddedBroker:
    """amqtt broker running on its own asyncio loop in a daemon thread."""

    def __init__(self, host="127.0.0.1", port=1883):
        self.host = host
        self.port = port
        self._loop = None
        self._broker = None
        self._thread = None
        self._ready = threading.Event()
        self.error = None

    def start(self, timeout=10.0):
        try:
            from amqtt.broker import Broker  # noqa: F401  (lazy: amqtt is the `broker` extra)
        except ImportError:
            raise RuntimeError(
                "no MQTT broker listens on %s:%d and the embedded one is not installed; "
                "install it with: pip install 'billiards-referee[broker]' "
                "(or start mosquitto, or run against a broker with --broker mqtt://HOST:PORT and "
                "--serial PORT, or --simulate for a demo)" % (self.host, self.port))
        self._thread = threading.Thread(target=self._run, name="embedded-broker", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError("the embedded MQTT broker did not start")
        if self.error is not None:
            raise RuntimeError("the embedded MQTT broker failed: %s" % (self.error,))

    def _run(self):
        from amqtt.broker import Broker
        config = {
            "listeners": {"default": {"type": "tcp", "bind": "%s:%d" % (self.host, self.port)}},
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True},
            },
        }
        loop = asyncio.new_event_loop()
        self._loop = loop
        asyncio.set_event_loop(loop)
        try:
            self._broker = Broker(config, loop=loop)
            loop.run_until_complete(self._broker.start())
        except Exception as e:  # reported to start()
            self.error = e
            self._ready.set()
            return
        self._ready.set()
        loop.run_forever()

    def stop(self):
        if self._loop is None or self._broker is None:
            return
        fut = asyncio.run_coroutine_threadsafe(self._broker.shutdown(), self._loop)
        try:
            fut.result(5)
        except Exception:
            pass
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
