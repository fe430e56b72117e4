"""Acceptance fixtures: one private mosquitto and one subscriber to everything per module."""
import pytest

from tests.host.harness import Mosquitto, Subscriber


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    m = Mosquitto(tmp_path_factory.mktemp("broker")).start()
    yield m
    m.stop()


@pytest.fixture(scope="module")
def sub(broker):
    s = Subscriber(broker.port, topics=("#",))
    yield s
    s.close()
