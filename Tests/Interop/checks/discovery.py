"""Every paired device appears in Home Assistant with the entities its profile calls for
(README "Home Assistant"), linked to the gateway, available, showing the gateway's state;
and nothing of the gateway's is in Home Assistant that should not be."""

from harness.profiles import bridge_entities
from harness.run import BASE


async def check_discovery(run, devices, label, timeout=45.0):
    """Waits for `devices` (and the bridge) to be in the registries, then checks each."""
    wanted = {f"{BASE}_bridge"} | {f"{BASE}_{d.id}" for d in devices}
    unique_ids = {e.unique_id for e in bridge_entities(BASE)}
    for device in devices:
        unique_ids |= {e.unique_id for e in run.expected(device)}
    registry_devices, entities, complete = await run.wait_registry(
        lambda ds, es: wanted <= set(ds) and unique_ids <= set(es), timeout
    )
    if not complete:
        run.report.note(
            f"after {timeout:.0f} s Home Assistant still lacks devices {sorted(wanted - set(registry_devices))} "
            f"and entities {sorted(unique_ids - set(entities))[:8]}"
        )
    enabled = [
        entities[e.unique_id]["entity_id"]
        for d in devices
        for e in run.expected(d)
        if e.unique_id in entities and not entities[e.unique_id].get("disabled_by")
    ]
    # A new entity shows unavailable until its availability topics arrive.
    await run.states.wait(lambda: all(run.states.state(e) not in (None, "unavailable") for e in enabled), 15)
    bridge = registry_devices.get(f"{BASE}_bridge")
    _check_bridge(run, label, bridge, entities)
    for device in devices:
        _check_device(run, label, device, registry_devices, entities, bridge)
    await _check_states(run, label, devices, entities)
    await check_no_orphans(run, f"{label}.no_orphans")


def _check_bridge(run, label, bridge, entities):
    report = run.report
    if not report.check(f"{label}.bridge.device", bridge is not None, "no device youll_bridge in the registry"):
        return
    missing = [e.unique_id for e in bridge_entities(BASE) if e.unique_id not in entities]
    wrong = [
        f"{e.unique_id} is {entities[e.unique_id]['entity_id']}"
        for e in bridge_entities(BASE)
        if e.unique_id in entities and not entities[e.unique_id]["entity_id"].startswith(e.domain + ".")
    ]
    report.check(f"{label}.bridge.entities", not missing and not wrong, f"missing {missing}, wrong domain {wrong}")


def _check_device(run, label, device, registry_devices, entities, bridge):
    report = run.report
    name = f"{label}.{device.label}"
    entry = registry_devices.get(f"{BASE}_{device.id}")
    if not report.check(f"{name}.device", entry is not None, f"no device {BASE}_{device.id} ({device.name}) in the registry"):
        return
    problems = []
    shown = entry.get("name_by_user") or entry.get("name")
    if shown != device.name:
        problems.append(f"name {shown!r}, expected {device.name!r}")
    if bridge is not None and entry.get("via_device_id") != bridge["id"]:
        problems.append("not linked to the gateway (via_device)")
    if entry.get("model") != device.profile.name:
        problems.append(f"model {entry.get('model')!r}, expected {device.profile.name!r}")
    if entry.get("manufacturer") != device.profile.manufacturer:
        problems.append(f"manufacturer {entry.get('manufacturer')!r}, expected {device.profile.manufacturer!r}")
    report.check(f"{name}.device_info", not problems, "; ".join(problems))

    problems = []
    for expected in run.expected(device):
        found = entities.get(expected.unique_id)
        if found is None:
            problems.append(f"missing {expected.domain} {expected.unique_id}")
            continue
        if not found["entity_id"].startswith(expected.domain + "."):
            problems.append(f"{expected.unique_id} is {found['entity_id']}, expected a {expected.domain}")
        if found.get("device_id") != entry["id"]:
            problems.append(f"{found['entity_id']} is not on the device")
        disabled = found.get("disabled_by") is not None
        # Only the first discovery says what Home Assistant's default was; later the suite
        # itself enables the maintenance buttons.
        if label == "discovery" and disabled == expected.enabled:
            problems.append(f"{found['entity_id']} {'disabled' if disabled else 'enabled'} by default")
    extra = [
        e["entity_id"]
        for uid, e in entities.items()
        if e.get("device_id") == entry["id"] and uid not in {x.unique_id for x in run.expected(device)}
    ]
    if extra:
        problems.append(f"unexpected entities {extra}")
    report.check(f"{name}.entities", not problems, "; ".join(problems))


async def _check_states(run, label, devices, entities):
    """Each enabled entity is available with the attributes its profile calls for, and a
    light's or fan's on/off is the gateway's."""
    states = await run.client.states()
    for device in devices:
        problems = []
        try:
            gateway_state = await run.gateway.get(device.name)
        except Exception as error:  # noqa: BLE001 - reported as the check's failure
            gateway_state = None
            problems.append(f"get --json: {error}")
        for expected in run.expected(device):
            found = entities.get(expected.unique_id)
            if found is None or found.get("disabled_by"):
                continue
            state = states.get(found["entity_id"])
            if state is None:
                problems.append(f"{found['entity_id']} has no state")
                continue
            if state["state"] == "unavailable":
                problems.append(f"{found['entity_id']} unavailable")
            for attribute, value in expected.attributes.items():
                actual = state["attributes"].get(attribute)
                if attribute == "supported_color_modes" and isinstance(actual, list):
                    actual = sorted(actual)
                if actual != value:
                    problems.append(f"{found['entity_id']} {attribute} {actual!r}, expected {value!r}")
            if gateway_state is not None and expected.key in ("light", "mist", "led"):
                field = {"light": "state", "mist": "mist", "led": "led"}[expected.key]
                want = {"ON": "on", "OFF": "off"}.get(gateway_state.get(field))
                if expected.key == "mist" and gateway_state.get("state") == "OFF":
                    want = "off"
                if want is not None and state["state"] != want:
                    problems.append(f"{found['entity_id']} is {state['state']}, the gateway says {field} {gateway_state.get(field)}")
        run.report.check(f"{label}.{device.label}.states", not problems, "; ".join(problems))


async def check_no_orphans(run, name):
    """Home Assistant has exactly the gateway's current devices and entities: nothing
    left from a removed device, an old name, or a component the profile does not have."""
    devices, entities = await run.registry()
    problems = []
    stray_devices = sorted(set(devices) - run.expected_identifiers())
    if stray_devices:
        problems.append(f"devices {stray_devices}")
    stray_entities = sorted(f"{entities[u]['entity_id']} ({u})" for u in set(entities) - run.expected_unique_ids())
    if stray_entities:
        problems.append(f"entities {stray_entities}")
    orphaned = sorted(e["entity_id"] for e in entities.values() if e.get("device_id") is None)
    if orphaned:
        problems.append(f"entities without a device {orphaned}")
    states = await run.client.states()
    registered = {e["entity_id"] for e in entities.values()}
    ghost_states = sorted(
        entity_id
        for entity_id, state in states.items()
        if state["attributes"].get("restored") and entity_id not in registered
    )
    if ghost_states:
        problems.append(f"restored states of unregistered entities {ghost_states}")
    run.report.check(name, not problems, "Home Assistant still has " + "; ".join(problems))
