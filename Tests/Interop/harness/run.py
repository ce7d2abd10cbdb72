"""Everything one run shares: the report, the processes, the broker and its recorder, the
gateway, Home Assistant and its client, and the paired devices with what Home Assistant
should show for each."""

import asyncio
import time

from harness.ha_client import States
from harness.profiles import bridge_entities, expected_entities

BASE = "youll"


class Run:
    def __init__(self, report):
        self.report = report
        self.processes = None
        self.broker = None
        self.recorder = None
        self.gateway = None
        self.ha = None
        self.states = None
        self.profiles = {}
        self.devices = []  # paired SimulatedDevice, removed ones flagged
        self.mqtt_entry_id = None
        self.seen_entity_ids = set()  # every entity id of the gateway's seen in the registry

    @property
    def client(self):
        return self.ha.client

    async def restart_states(self):
        """Follows state changes over the current client (after every Home Assistant start)."""
        self.states = States(self.client)
        await self.states.start()

    @property
    def present(self):
        return [d for d in self.devices if not d.removed]

    # -- what Home Assistant should have -----------------------------------------------------

    def expected(self, device):
        return expected_entities(device.profile, device.id, BASE)

    def expected_unique_ids(self):
        ids = {e.unique_id for e in bridge_entities(BASE)}
        for device in self.present:
            ids |= {e.unique_id for e in self.expected(device)}
        return ids

    def expected_identifiers(self):
        return {f"{BASE}_bridge"} | {f"{BASE}_{d.id}" for d in self.present}

    # -- what Home Assistant has --------------------------------------------------------------

    async def registry(self):
        """The gateway's devices and entities in Home Assistant's registries:
        ({identifier: device entry}, {unique id: entity entry})."""
        devices = {}
        for entry in await self.client.device_registry():
            for domain, identifier in entry.get("identifiers") or []:
                if domain == "mqtt" and identifier.startswith(BASE + "_"):
                    devices[identifier] = entry
        entities = {}
        for entry in await self.client.entity_registry():
            if entry.get("platform") == "mqtt" and (entry.get("unique_id") or "").startswith(BASE + "_"):
                entities[entry["unique_id"]] = entry
                self.seen_entity_ids.add(entry["entity_id"])
        return devices, entities

    async def wait_registry(self, predicate, timeout):
        """Polls the registries until `predicate(devices, entities)` holds; returns the last
        (devices, entities, held)."""
        deadline = time.monotonic() + timeout
        while True:
            devices, entities = await self.registry()
            if predicate(devices, entities):
                return devices, entities, True
            if time.monotonic() >= deadline:
                return devices, entities, False
            await asyncio.sleep(0.5)

    async def entity_ids(self, device, enabled_only=True):
        """{key: entity id} of a device's entities in the registry."""
        _, entities = await self.registry()
        result = {}
        for expected in self.expected(device):
            entry = entities.get(expected.unique_id)
            if entry is None or (enabled_only and entry.get("disabled_by")):
                continue
            result[expected.key] = entry["entity_id"]
        return result

    async def all_entity_ids(self, follows_device_only=False):
        """Entity ids of every enabled entity of the gateway (bridge included unless
        `follows_device_only`)."""
        _, entities = await self.registry()
        wanted = []
        if not follows_device_only:
            wanted += bridge_entities(BASE)
        for device in self.present:
            wanted += [e for e in self.expected(device) if e.follows_device or not follows_device_only]
        return [
            entities[e.unique_id]["entity_id"]
            for e in wanted
            if e.unique_id in entities and not entities[e.unique_id].get("disabled_by")
        ]
