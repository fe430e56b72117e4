from tests.host.conftest import broker  # noqa: F401  (a private mosquitto per test)
