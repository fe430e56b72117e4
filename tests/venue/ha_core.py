"""A real Home Assistant core, in one process, connected to a test broker (runs under the HA venv's
Python 3.13, see .ci/ha-venv; driven by tests/venue/test_home_assistant.py).

Usage: python ha_core.py BROKER_PORT. It sets up HA's `mqtt` integration from a config entry
(as the UI would), then answers one JSON request per stdin line with one JSON line:
  {"op": "states"}                          every entity state, with attributes
  {"op": "device", "identifier": id}        the device registry entry of our device
  {"op": "service", "domain", "service", "data"}   a service call, as a user's tap in HA
  {"op": "schema", "configs": [[component, config], ...]}   each checked with the MQTT
        platform's own DISCOVERY_SCHEMA: errors, and keys the schema would silently drop
  {"op": "log"}                             warnings and errors HA logged so far
  {"op": "stop"}
"""
import asyncio
import json
import logging
import os
import socket
import sys
import tempfile
from types import MappingProxyType

from homeassistant import auth, bootstrap, loader
from homeassistant.config_entries import ConfigEntries, ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry
from homeassistant.setup import async_setup_component

NOISE = ("aiohttp_fast_zlib",)      # "zlib_ng and isal are not available": a speed note only


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        msg = record.getMessage()
        # How this harness adds the MQTT entry (async_add, not the UI's flow) can trip HA's
        # "async_forward_entry_setups without the setup lock" check: about the harness, not us.
        if record.name == "homeassistant.helpers.frame" and "async_forward_entry" in msg:
            return
        if not record.name.startswith(NOISE):
            self.records.append({"logger": record.name, "level": record.levelname,
                                 "message": record.getMessage()})


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def start(broker_port):
    d = tempfile.mkdtemp(prefix="ha-core-")
    with open(os.path.join(d, "configuration.yaml"), "w"):
        pass
    hass = HomeAssistant(d)
    loader.async_setup(hass)
    hass.config_entries = ConfigEntries(hass, {})
    await bootstrap.async_load_base_functionality(hass)     # registries, frame, template helpers
    hass.auth = await auth.auth_manager_from_config(hass, [{"type": "homeassistant"}], [])
    assert await async_setup_component(hass, "homeassistant", {})
    assert await async_setup_component(hass, "http", {"http": {"server_port": free_port(),
                                                               "server_host": ["127.0.0.1"]}})
    entry = ConfigEntry(version=1, minor_version=2, domain="mqtt", title="MQTT",
                        data={"broker": "127.0.0.1", "port": broker_port}, source="user", options={},
                        unique_id=None, discovery_keys=MappingProxyType({}), subentries_data=None)
    await hass.config_entries.async_add(entry)
    await hass.async_block_till_done()
    await hass.async_start()
    return hass


def check_schemas(configs):
    import importlib
    out = []
    for component, cfg in configs:
        mod = importlib.import_module("homeassistant.components.mqtt." + component)
        try:
            valid = mod.DISCOVERY_SCHEMA(dict(cfg))
        except Exception as e:     # vol.Invalid: what HA would log and refuse
            out.append({"component": component, "unique_id": cfg.get("unique_id"), "error": str(e)})
            continue
        dropped = sorted(set(cfg) - set(valid))
        if dropped:
            out.append({"component": component, "unique_id": cfg.get("unique_id"), "dropped": dropped})
    return out


async def handle(hass, req, logs):
    op = req.get("op")
    if op == "states":
        return {s.entity_id: {"state": s.state, "attributes": dict(s.attributes)}
                for s in hass.states.async_all()}
    if op == "device":
        dev = device_registry.async_get(hass).async_get_device(identifiers={("mqtt", req["identifier"])})
        if dev is None:
            return None
        return {k: getattr(dev, k) for k in ("name", "manufacturer", "model", "sw_version", "hw_version",
                                             "serial_number", "configuration_url")}
    if op == "service":
        try:
            await hass.services.async_call(req["domain"], req["service"], req.get("data") or {}, blocking=True)
        except Exception as e:
            return {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
        return {"ok": True}
    if op == "schema":
        return check_schemas(req["configs"])
    if op == "log":
        return logs.records
    return {"error": "unknown op %r" % (op,)}


async def main(broker_port):
    logs = Collect()
    logging.getLogger().addHandler(logs)
    logging.getLogger().setLevel(logging.WARNING)
    hass = await start(broker_port)
    loop = asyncio.get_running_loop()
    print(json.dumps({"ready": True}), flush=True)
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        req = json.loads(line)
        if req.get("op") == "stop":
            break
        res = await handle(hass, req, logs)
        print(json.dumps(res, default=str), flush=True)
    await hass.async_stop()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
