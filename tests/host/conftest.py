import pytest

from tests.host.harness import Mosquitto, Subscriber


@pytest.fixture
def broker(tmp_path):
    m = Mosquitto(tmp_path).start()
    yield m
    m.stop()


@pytest.fixture
def subscriber(broker):
    s = Subscriber(broker.port)
    yield s
    s.close()
