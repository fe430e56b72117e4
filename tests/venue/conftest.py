from tests.host.conftest import broker, subscriber   # noqa: F401  (the same private mosquitto)
