"""Restarts of each part: the gateway (SIGTERM, as systemd stops it), the broker, Home
Assistant. Entities must go unavailable while a part is down and come back with the states
they had, and no device may flap (available, then unavailable again) while things start."""

import asyncio
import datetime
import json
import time

from harness.run import BASE

# Attributes a restart must not change (sensors that count time are left out).
COMPARED = {
    "light": ("brightness", "color_mode", "hs_color", "color_temp_kelvin", "effect"),
    "fan": ("preset_mode",),
    "select": (),
    "binary_sensor": (),
}
SETTLE_SECONDS = 3.0


async def snapshot(run):
    """{entity id: (state, {attribute: value})} of the entities a restart must restore."""
    entity_ids = await run.all_entity_ids()
    result = {}
    for entity_id in entity_ids:
        domain = entity_id.split(".")[0]
        if domain not in COMPARED:
            continue
        attributes = run.states.attributes(entity_id)
        kept = {}
        for name in COMPARED[domain]:
            value = attributes.get(name)
            if isinstance(value, list):
                value = [round(v) if isinstance(v, float) else v for v in value]
            kept[name] = value
        result[entity_id] = (run.states.state(entity_id), kept)
    return result


def differences(before, after):
    return [
        f"{entity_id}: {before[entity_id]} → {after.get(entity_id)}"
        for entity_id in sorted(before)
        if after.get(entity_id) != before[entity_id]
    ]


async def wait_restored(run, before, entity_ids, timeout):
    """Waits until every entity is available and the snapshot matches `before`."""
    async def holds():
        if any(run.states.state(e) in (None, "unavailable") for e in entity_ids):
            return False
        return not differences(before, await snapshot(run))

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await holds():
            return True
        await asyncio.sleep(0.25)
    return await holds()


def ha_flaps(sequences):
    """Entities whose state went back to unavailable after first being available:
    {entity id: [(seconds, state), …]}."""
    flapping = {}
    for entity_id, sequence in sequences.items():
        seen_available = False
        for _, state in sequence:
            if state not in ("unavailable", "<removed>"):
                seen_available = True
            elif seen_available:
                flapping[entity_id] = sequence
                break
    return flapping


def availability_flaps(run, since, broker_kept_retained):
    """Devices whose `youll/<name>/availability` said offline after online since `since`,
    counting the retained value the broker still held then (when it kept it):
    {name: ['online', 'offline (unknown)', 'online', …]}."""
    flapping = {}
    for device in run.present:
        topic = f"{BASE}/{device.name}/availability"
        earlier = [m for m in run.recorder.messages if m.topic == topic and m.time < since]
        retained = broker_kept_retained and earlier and earlier[-1].payload
        values = [_state_of(earlier[-1])] if retained else []
        values += [_state_of(m) for m in run.recorder.since(since, topic=topic)]
        if any(a == "online" and str(b).startswith("offline") for a, b in zip(values, values[1:])):
            flapping[device.name] = values
    return flapping


def _state_of(message):
    """`online`, `offline`, or `offline (reason)`."""
    try:
        fields = json.loads(message.payload)
        state = fields.get("state")
        return f"{state} ({fields['reason']})" if fields.get("reason") else state
    except (json.JSONDecodeError, AttributeError):
        return message.text


def _describe(sequence, since):
    return " → ".join(f"{state}@{arrived - since:+.3f}s" for arrived, state in sequence)


async def check_no_flaps(run, name, since, entity_ids, sequences=None, broker_kept_retained=True):
    await asyncio.sleep(SETTLE_SECONDS)
    if sequences is None:
        sequences = {e: run.states.sequence(e, since) for e in entity_ids}
    flapping = ha_flaps(sequences)
    registry_devices, entities = await run.registry()
    device_names = {d["id"]: d.get("name_by_user") or d.get("name") for d in registry_devices.values()}
    owner = {e["entity_id"]: device_names.get(e.get("device_id"), "?") for e in entities.values()}
    devices = sorted({owner.get(e, "?") for e in flapping})
    run.report.check(
        f"{name}.no_flap_in_home_assistant",
        not flapping,
        f"{len(flapping)} entities of {len(devices)} devices ({', '.join(devices)}) went unavailable again "
        "after coming back; e.g. " + "; ".join(f"{e}: {_describe(s, since)}" for e, s in list(flapping.items())[:3]),
    )
    mqtt_flaps = availability_flaps(run, since, broker_kept_retained)
    run.report.check(
        f"{name}.no_flap_on_availability_topics",
        not mqtt_flaps,
        "; ".join(f"{BASE}/{n}/availability: {' → '.join(map(str, v))}" for n, v in mqtt_flaps.items()),
    )


async def restart_gateway(run):
    report = run.report
    report.phase("gateway SIGTERM and restart")
    before = await snapshot(run)
    connection = (await _bridge_ids(run))["connection"]
    entities = [e for e in await run.all_entity_ids() if e != connection]
    status = await run.gateway.stop()
    report.expect_equal("gateway_restart.sigterm_exit_status", status, 0, "exit status after SIGTERM")
    down = await run.states.wait(
        lambda: all(run.states.state(e) == "unavailable" for e in entities) and run.states.state(connection) == "off", 15
    )
    still = [e for e in entities if run.states.state(e) != "unavailable"]
    report.check(
        "gateway_restart.unavailable_while_stopped",
        down,
        f"after 15 s: still available {still[:8]}; Connection is {run.states.state(connection)!r}",
    )
    started = await run.gateway.start()
    restored = await wait_restored(run, before, entities + [connection], 45)
    report.check(
        "gateway_restart.states_restored",
        restored,
        "; ".join(differences(before, await snapshot(run))[:8]) or "some entities stayed unavailable",
    )
    await check_no_flaps(run, "gateway_restart", started, entities)


async def restart_broker(run):
    report = run.report
    report.phase("broker restart")
    before = await snapshot(run)
    entities = await run.all_entity_ids()
    retained_before = await gateway_retained(run)
    await run.broker.stop()
    down = await run.states.wait(lambda: all(run.states.state(e) == "unavailable" for e in entities), 30)
    report.check(
        "broker_restart.unavailable_while_down",
        down,
        f"still available after 30 s: {[e for e in entities if run.states.state(e) != 'unavailable'][:8]}",
    )
    started = time.time()
    await run.broker.start()
    restored = await wait_restored(run, before, entities, 90)
    report.check(
        "broker_restart.states_restored",
        restored,
        "; ".join(differences(before, await snapshot(run))[:8]) or "some entities stayed unavailable",
    )
    report.check(
        "broker_restart.gateway_still_running", run.gateway.running, "the gateway exited while the broker was down"
    )
    # The broker kept nothing: every retained topic of the bridge and the current devices
    # (those it had before, and those the README says there are) must come back.
    retained_after = await gateway_retained(run)
    wanted = (set(retained_before) & current_topics(run, retained_before)) | expected_retained(run)
    lost = sorted(wanted - set(retained_after))
    report.check(
        "broker_restart.retained_topics_restored",
        not lost,
        f"not retained after the restart (the gateway did not publish them again): {lost}",
    )
    await check_no_flaps(run, "broker_restart", started, entities, broker_kept_retained=False)


async def gateway_retained(run):
    """The gateway's retained topics now: its own and its discovery configs."""
    retained = await run.broker.retained(f"{BASE}/#", "homeassistant/device/#")
    return {t: p for t, p in retained.items() if not t.startswith("homeassistant/") or f"/{BASE}_" in t}


def expected_retained(run):
    """The retained topics the README promises for the bridge and each current device."""
    topics = {f"{BASE}/bridge/{t}" for t in ("state", "info", "devices", "health")}
    topics.add(f"homeassistant/device/{BASE}_bridge/config")
    for device in run.present:
        topics |= {f"{BASE}/{device.name}", f"{BASE}/{device.name}/availability"}
        topics.add(f"homeassistant/device/{BASE}_{device.id}/config")
        if device.profile.maintenance:
            topics.add(f"{BASE}/{device.name}/maintenance")
    return topics


def current_topics(run, topics):
    """Those of `topics` that belong to the bridge or a current device (not ones a rename
    or removal left behind: the rename and remove checks report those)."""
    names = {d.name for d in run.present}
    ids = {f"{BASE}_{d.id}" for d in run.present} | {f"{BASE}_bridge"}
    kept = set()
    for topic in topics:
        parts = topic.split("/")
        if topic.startswith("homeassistant/"):
            if len(parts) > 2 and parts[2] in ids:
                kept.add(topic)
        elif parts[1] == "bridge" or parts[1] in names:
            kept.add(topic)
    return kept


async def restart_home_assistant(run, change_while_down):
    """Stops Home Assistant, lets `change_while_down()` change a device through the CLI
    (so the states after the restart must come from the gateway, not from Home Assistant's
    memory), starts it again. Returns the snapshot taken before the restart."""
    report = run.report
    report.phase("Home Assistant restart")
    entities = await run.all_entity_ids()
    status = await run.ha.stop()
    report.expect_equal("ha_restart.stop_exit_status", status, 0, "Home Assistant's exit status")
    expected_changes = await change_while_down() if change_while_down else {}
    started = time.time()
    await run.ha.start()
    await run.ha.connect()
    await run.restart_states()
    birth = await run.recorder.wait_for(
        lambda m: m.topic == "homeassistant/status" and m.text == "online", 60, since=started
    )
    republished = birth is not None and await run.recorder.wait_for(
        lambda m: m.topic.startswith("homeassistant/device/youll") and m.payload, 15, since=birth.time
    )
    report.check(
        "ha_restart.discovery_republished_on_birth",
        bool(republished),
        "Home Assistant published no birth message" if birth is None else "no discovery config after the birth message",
    )
    entities_back = await run.states.wait(
        lambda: all(run.states.state(e) not in (None, "unavailable") for e in entities), 60
    )
    report.check(
        "ha_restart.entities_available",
        entities_back,
        f"unavailable 60 s after the restart: {[e for e in entities if run.states.state(e) in (None, 'unavailable')][:8]}",
    )
    wrong = [
        f"{entity_id} is {run.states.state(entity_id)!r}, expected {state!r}"
        for entity_id, state in expected_changes.items()
        if run.states.state(entity_id) != state
    ]
    report.check("ha_restart.states_follow_the_gateway", not wrong, "; ".join(wrong))
    await asyncio.sleep(SETTLE_SECONDS)
    history = await _history(run, entities, started)
    # The flap check below reads this history: it must hold what the new start recorded.
    report.check(
        "ha_restart.history_recorded",
        sum(len(v) for v in history.values()) >= len(entities),
        f"Home Assistant's history holds {sum(len(v) for v in history.values())} states of {len(entities)} entities since the start",
    )
    await check_no_flaps(run, "ha_restart", started, entities, sequences=history)


async def _history(run, entity_ids, since):
    start = datetime.datetime.fromtimestamp(since, datetime.timezone.utc).isoformat()
    try:
        recorded = await run.client.history(entity_ids, start)
    except Exception as error:  # noqa: BLE001 - reported below as no sequences
        run.report.note(f"history API: {error}")
        return {}
    sequences = {}
    for entity_id, series in recorded.items():
        changes = [(datetime.datetime.fromisoformat(item["last_changed"]).timestamp(), item["state"]) for item in series]
        # The first entry is the state at `since` (from before the restart): only what the
        # new Home Assistant wrote counts.
        sequences[entity_id] = [(at, state) for at, state in changes if at > since + 0.5]
    return sequences


async def _bridge_ids(run):
    _, entities = await run.registry()
    return {"connection": entities[f"{BASE}_bridge_connection"]["entity_id"]}
