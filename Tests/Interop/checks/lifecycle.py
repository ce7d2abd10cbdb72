"""Rename and remove, through the gateway's CLI, as Home Assistant sees them: a rename keeps
the device's entities (ids come from Tuya device ids) and moves every topic to the new
name, leaving nothing retained under the old one; a removal takes the device and all its
entities out of Home Assistant and clears every topic it had."""

import asyncio
import json
import time

from checks.discovery import check_no_orphans
from checks.driving import STATE_TIMEOUT, act
from harness.run import BASE


def topics_of(name):
    return (f"{BASE}/{name}", f"{BASE}/{name}/#")


def _under(topic, name):
    return topic == f"{BASE}/{name}" or topic.startswith(f"{BASE}/{name}/")


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


async def rename(run, device, new_name):
    report = run.report
    check = f"rename.{device.label}"
    old = device.name
    keys_before = await run.entity_ids(device, enabled_only=False)
    try:
        answer = await run.gateway.cli_json("rename", old, new_name)
    except Exception as error:  # noqa: BLE001
        return report.fail(f"{check}.cli", str(error))
    report.check(f"{check}.cli", answer.get("to") == new_name, f"rename answered {answer}")
    device.name = new_name

    identifier = f"{BASE}_{device.id}"
    devices, _, renamed = await run.wait_registry(
        lambda ds, es: ds.get(identifier, {}).get("name") == new_name, STATE_TIMEOUT
    )
    report.check(
        f"{check}.device_name_in_home_assistant",
        renamed,
        f"the device is still named {devices.get(identifier, {}).get('name')!r}",
    )
    keys_after = await run.entity_ids(device, enabled_only=False)
    report.check(
        f"{check}.entities_kept",
        keys_after == keys_before,
        f"before {sorted(keys_before.values())}, after {sorted(keys_after.values())}",
    )
    enabled = list((await run.entity_ids(device)).values())
    available = await run.states.wait(lambda: all(run.states.state(e) not in (None, "unavailable") for e in enabled), STATE_TIMEOUT)
    report.check(
        f"{check}.entities_available",
        available,
        f"unavailable after the rename: {[e for e in enabled if run.states.state(e) in (None, 'unavailable')]}",
    )
    await _drive_after_rename(run, check, device, keys_after)
    await _check_retained_after_rename(run, check, device, old, new_name)
    await _check_discovery_config(run, check, device, old, new_name)
    if device.profile.maintenance:
        await _check_maintenance_after_rename(run, check, device, keys_after)


async def _drive_after_rename(run, check, device, keys):
    """A command from Home Assistant reaches the device under its new name."""
    if device.is_light and "light" in keys:
        entity = keys["light"]
        on = run.states.state(entity) == "on"
        await act(run, f"{check}.driven_by_home_assistant", entity, "light", "turn_off" if on else "turn_on", {},
                  lambda s, a: s == ("off" if on else "on"), lambda g: g.get("state") == ("OFF" if on else "ON"), device)
    elif "mist" in keys:
        entity = keys["mist"]
        on = run.states.state(entity) == "on"
        await act(run, f"{check}.driven_by_home_assistant", entity, "fan", "turn_off" if on else "turn_on", {},
                  lambda s, a: s == ("off" if on else "on"), lambda g: g.get("mist") == ("OFF" if on else "ON"), device)


async def _check_retained_after_rename(run, check, device, old, new):
    retained = await run.broker.retained(*topics_of(old), *topics_of(new))
    left = sorted(t for t in retained if _under(t, old))
    run.report.check(f"{check}.old_topics_cleared", not left, f"still retained under the old name: {left}")
    wanted = [f"{BASE}/{new}", f"{BASE}/{new}/availability"]
    missing = [t for t in wanted if t not in retained]
    run.report.check(f"{check}.new_topics_retained", not missing, f"nothing retained on {missing}")


async def _check_discovery_config(run, check, device, old, new):
    topic = f"homeassistant/device/{BASE}_{device.id}/config"
    retained = await run.broker.retained(topic)
    try:
        config = json.loads(retained.get(topic) or b"null")
    except json.JSONDecodeError:
        config = None
    if config is None:
        return run.report.fail(f"{check}.discovery_config_follows", f"nothing retained on {topic}")
    strings = list(_strings(config))
    stale = sorted({s for s in strings if _under(s, old) or f'"device":"{old}"' in s})
    fresh = any(_under(s, new) for s in strings)
    run.report.check(
        f"{check}.discovery_config_follows",
        not stale and fresh,
        f"{topic} still names the old name: {stale[:4]}" if stale else f"{topic} does not name {BASE}/{new}",
    )


async def _check_maintenance_after_rename(run, check, device, keys):
    """The maintenance entities read `<base>/<name>/maintenance`: after a rename it must be
    published under the new name (and cleared under the old one), or they show unknown."""
    report = run.report
    new_topic = f"{BASE}/{device.name}/maintenance"
    published = await run.recorder.wait_for(lambda m: m.topic == new_topic and m.payload, STATE_TIMEOUT, since=0)
    report.check(
        f"{check}.maintenance_topic_published",
        published is not None,
        f"nothing published on {new_topic} within {STATE_TIMEOUT:.0f} s of the rename",
    )
    remaining = [entity for key, entity in keys.items() if key.endswith("_remaining")]
    shown = await run.states.wait(
        lambda: all(_is_number(run.states.state(e)) for e in remaining), 2.0 if published is None else STATE_TIMEOUT
    )
    report.check(
        f"{check}.maintenance_sensors_have_values",
        shown,
        "; ".join(f"{e} is {run.states.state(e)!r}" for e in remaining if not _is_number(run.states.state(e))),
    )
    rule = device.profile.timed_maintenance_rule()["type"]
    button = keys.get("maintenance_" + rule.replace("-", "_") + "_done")
    if button is None:
        return
    since = time.time()
    await run.client.call_service("button", "press", {"entity_id": button})
    request = await run.recorder.wait_for(lambda m: m.topic == f"{BASE}/bridge/request/maintenance/done", STATE_TIMEOUT, since=since)
    response = await run.recorder.wait_for(lambda m: m.topic == f"{BASE}/bridge/response/maintenance/done", STATE_TIMEOUT, since=since)
    ok = response is not None and b'"ok"' in response.payload
    report.check(
        f"{check}.mark_done_button",
        request is not None and ok and json.loads(request.payload).get("device") == device.name,
        f"pressed: request {request!r}, answer {response!r}",
    )
    if ok:
        # Marking a task done changes the reminders: they are published again, under the new name.
        after = await run.recorder.wait_for(lambda m: m.topic == new_topic and m.payload, STATE_TIMEOUT, since=since)
        elsewhere = [m.topic for m in run.recorder.since(since) if m.topic.endswith("/maintenance") and m.payload]
        report.check(
            f"{check}.maintenance_published_after_mark_done",
            after is not None,
            f"the gateway answered ok but published nothing on {new_topic}"
            + (f" (it published on {sorted(set(elsewhere))})" if elsewhere else ""),
        )


def _is_number(text):
    try:
        float(text)
        return True
    except (TypeError, ValueError):
        return False


async def remove(run, device):
    report = run.report
    check = f"remove.{device.label}"
    unique_ids = {e.unique_id for e in run.expected(device)}
    entity_ids = set((await run.entity_ids(device, enabled_only=False)).values())
    try:
        await run.gateway.cli_json("remove", device.name, "--yes")
    except Exception as error:  # noqa: BLE001
        return report.fail(f"{check}.cli", str(error))
    report.check(f"{check}.cli", True)
    device.removed = True
    identifier = f"{BASE}_{device.id}"
    devices, entities, gone = await run.wait_registry(
        lambda ds, es: identifier not in ds and not unique_ids & set(es), STATE_TIMEOUT
    )
    report.check(
        f"{check}.gone_from_home_assistant",
        gone,
        f"device {'still' if identifier in devices else 'gone'}, entities still there: "
        f"{sorted(entities[u]['entity_id'] for u in unique_ids & set(entities))}",
    )
    states = await run.client.states()
    left = sorted(e for e in entity_ids if e in states)
    report.check(f"{check}.states_removed", not left, f"Home Assistant still has states for {left}")
    await asyncio.sleep(0.5)
    retained = await run.broker.retained(*topics_of(device.name), f"homeassistant/device/{identifier}/config")
    report.check(f"{check}.topics_cleared", not retained, f"still retained: {sorted(retained)}")
    await check_no_orphans(run, f"{check}.no_orphans")
