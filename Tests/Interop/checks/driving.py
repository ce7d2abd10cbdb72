"""Driving devices from Home Assistant: each service call must show in Home Assistant's
state (which only follows the gateway's confirmed state) and in `youll-devices get --json`,
both saying what was asked. The time from the call until Home Assistant shows the result is
the latency the summary prints."""

import asyncio
import json
import time

from harness.run import BASE

STATE_TIMEOUT = 10.0


def near(value, target, tolerance):
    return isinstance(value, (int, float)) and abs(value - target) <= tolerance


async def act(run, check, entity_id, domain, service, data, ha_holds, gateway_holds, device):
    """Calls the service, waits for Home Assistant's state to satisfy `ha_holds(state,
    attributes)`, then reads the gateway's state and checks `gateway_holds(json)`."""
    states = run.states
    before = time.perf_counter()
    try:
        await run.client.call_service(domain, service, {"entity_id": entity_id, **data})
    except Exception as error:  # noqa: BLE001 - the check's failure
        return run.report.fail(check, f"{domain}.{service} {data}: {error}")
    shown = await states.wait(lambda: ha_holds(states.state(entity_id), states.attributes(entity_id)), STATE_TIMEOUT)
    elapsed_ms = (time.perf_counter() - before) * 1000
    if shown:
        run.report.latency(elapsed_ms)
    try:
        gateway = await run.gateway.get(device.name)
    except Exception as error:  # noqa: BLE001
        gateway = {"error": str(error)}
    gateway_ok = gateway_holds(gateway)
    detail = []
    if not shown:
        attributes = {k: v for k, v in states.attributes(entity_id).items() if k not in ("friendly_name", "supported_features")}
        detail.append(
            f"Home Assistant shows {states.state(entity_id)} {json.dumps(attributes, default=str)[:300]} "
            f"{STATE_TIMEOUT:.0f} s after {domain}.{service} {json.dumps(data)}"
        )
    if not gateway_ok:
        detail.append(f"the gateway's state is {json.dumps(gateway)[:400]}")
    return run.report.check(check, shown and gateway_ok, "; ".join(detail))


async def drive_light(run, device):
    ids = await run.entity_ids(device)
    entity = ids.get("light")
    name = f"drive.{device.label}"
    if not run.report.check(f"{name}.entity", entity is not None, "no light entity to drive"):
        return
    modes = set(run.states.attributes(entity).get("supported_color_modes") or [])
    if run.states.state(entity) == "on":
        await act(run, f"{name}.turn_off_first", entity, "light", "turn_off", {},
                  lambda s, a: s == "off", lambda g: g.get("state") == "OFF", device)
    if modes - {"onoff"}:
        await act(run, f"{name}.turn_on_brightness", entity, "light", "turn_on", {"brightness_pct": 40},
                  lambda s, a: s == "on" and near(a.get("brightness"), 102, 2),
                  lambda g: g.get("state") == "ON" and near(g.get("brightness"), 40, 1), device)
    else:
        await act(run, f"{name}.turn_on", entity, "light", "turn_on", {},
                  lambda s, a: s == "on", lambda g: g.get("state") == "ON", device)
    if "color_temp" in modes:
        await act(run, f"{name}.color_temp_kelvin", entity, "light", "turn_on", {"color_temp_kelvin": 3000},
                  lambda s, a: a.get("color_mode") == "color_temp" and near(a.get("color_temp_kelvin"), 3000, 40),
                  lambda g: g.get("color_mode") == "color_temp" and near(g.get("color_temp"), 3000, 40), device)
    if "hs" in modes:
        await act(run, f"{name}.hs_color", entity, "light", "turn_on", {"hs_color": [200, 60]},
                  lambda s, a: a.get("color_mode") == "hs" and _hs_near(a.get("hs_color"), 200, 60),
                  lambda g: g.get("color_mode") == "hs" and _hs_near([(g.get("color") or {}).get("h"), (g.get("color") or {}).get("s")], 200, 60),
                  device)
        # Home Assistant's slider on a colour: the bulb dims and stays in colour (README).
        await act(run, f"{name}.brightness_in_colour", entity, "light", "turn_on", {"brightness_pct": 25},
                  lambda s, a: near(a.get("brightness"), 64, 2) and a.get("color_mode") == "hs",
                  lambda g: near(g.get("brightness"), 25, 1) and g.get("color_mode") == "hs", device)
    effects = run.states.attributes(entity).get("effect_list") or []
    if effects:
        effect = effects[1] if len(effects) > 1 else effects[0]
        await act(run, f"{name}.effect", entity, "light", "turn_on", {"effect": effect},
                  lambda s, a: a.get("effect") == effect,
                  lambda g: g.get("effect") == effect and g.get("scene") == effect, device)
    await act(run, f"{name}.turn_off", entity, "light", "turn_off", {},
              lambda s, a: s == "off", lambda g: g.get("state") == "OFF", device)
    # Left on, warm white where it can, so the restarts have a state worth restoring.
    data = {"color_temp_kelvin": 2700} if "color_temp" in modes else {}
    await act(run, f"{name}.turn_on_again", entity, "light", "turn_on", data,
              lambda s, a: s == "on", lambda g: g.get("state") == "ON", device)


def _hs_near(pair, hue, saturation):
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        return False
    return near(pair[0], hue, 1.5) and near(pair[1], saturation, 1.5)


async def drive_diffuser(run, device):
    ids = await run.entity_ids(device)
    name = f"drive.{device.label}"
    fan, led, timer, minutes = ids.get("mist"), ids.get("led"), ids.get("timer"), ids.get("minutes_left")
    states = run.states
    if fan is not None:
        if states.state(fan) == "on":
            await act(run, f"{name}.mist_off_first", fan, "fan", "turn_off", {},
                      lambda s, a: s == "off", lambda g: g.get("mist") == "OFF", device)
        await act(run, f"{name}.mist_on", fan, "fan", "turn_on", {},
                  lambda s, a: s == "on", lambda g: g.get("state") == "ON" and g.get("mist") == "ON", device)
        presets = states.attributes(fan).get("preset_modes") or []
        current = states.attributes(fan).get("preset_mode")
        other = next((p for p in presets if p != current), None)
        if other is not None:
            await act(run, f"{name}.mist_preset", fan, "fan", "set_preset_mode", {"preset_mode": other},
                      lambda s, a: a.get("preset_mode") == other, lambda g: g.get("mist_mode") == other, device)
    if timer is not None:
        pairs = device.profile.labels("timer")
        current = states.state(timer)
        value, label = next(((v, lbl) for v, lbl in reversed(pairs) if lbl != current), pairs[-1])
        await act(run, f"{name}.timer_select", timer, "select", "select_option", {"option": label},
                  lambda s, a: s == label, lambda g: g.get("timer") == value, device)
        if minutes is not None:
            await _check_minutes_left(run, f"{name}.minutes_left", minutes, device)
        off_value, off_label = pairs[0]
        await act(run, f"{name}.timer_off", timer, "select", "select_option", {"option": off_label},
                  lambda s, a: s == off_label, lambda g: g.get("timer") == off_value, device)
    if led is not None:
        await _drive_led(run, name, led, device)
    if fan is not None:
        await act(run, f"{name}.mist_off", fan, "fan", "turn_off", {},
                  lambda s, a: s == "off", lambda g: g.get("mist") == "OFF", device)
        await act(run, f"{name}.mist_on_again", fan, "fan", "turn_on", {},
                  lambda s, a: s == "on", lambda g: g.get("mist") == "ON", device)


async def _drive_led(run, name, led, device):
    modes = set(run.states.attributes(led).get("supported_color_modes") or [])
    data = {"brightness_pct": 50}
    if "hs" in modes:
        data["hs_color"] = [120, 80]

    def ha_holds(s, a):
        return s == "on" and near(a.get("brightness"), 128, 3) and ("hs" not in modes or _hs_near(a.get("hs_color"), 120, 80))

    def gateway_holds(g):
        colour = g.get("led_color") or {}
        return (
            g.get("led") == "ON"
            and near(g.get("led_brightness"), 50, 1)
            and ("hs" not in modes or _hs_near([colour.get("hue"), colour.get("saturation")], 120, 80))
        )

    await act(run, f"{name}.led_on_colour", led, "light", "turn_on", data, ha_holds, gateway_holds, device)
    await act(run, f"{name}.led_off", led, "light", "turn_off", {},
              lambda s, a: s == "off", lambda g: g.get("led") == "OFF", device)


async def _check_minutes_left(run, check, entity, device):
    """The duration sensor shows the gateway's `minutes_left` (the device reports it after
    the timer is set)."""
    gateway = {}

    async def agree():
        nonlocal gateway
        gateway = await run.gateway.get(device.name)
        return str(gateway.get("minutes_left")) == run.states.state(entity)

    deadline = time.monotonic() + STATE_TIMEOUT
    while not await agree() and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    run.report.check(
        check,
        str(gateway.get("minutes_left")) == run.states.state(entity),
        f"Home Assistant shows {run.states.state(entity)!r}, the gateway minutes_left {gateway.get('minutes_left')!r}",
    )


async def press_buttons(run, diffusers):
    """The gateway's Permit pairing button and each diffuser's maintenance "mark done"
    buttons (enabled by the suite earlier): each press reaches the gateway as the bridge
    request the README documents and is answered `ok`."""
    _, entities = await run.registry()
    # `bridge.auth` is on (the default): no Permit pairing button, and an unsigned
    # permit_join (what the button would send) is refused, saying why.
    permit = entities.get(f"{BASE}_bridge_permit_join")
    since = time.time()
    await run.broker.publish(f"{BASE}/bridge/request/permit_join", '{"value":true,"transaction":"interop-unsigned"}')
    response = await run.recorder.wait_for(
        lambda m: m.topic == f"{BASE}/bridge/response/permit_join" and b"interop-unsigned" in m.payload,
        STATE_TIMEOUT,
        since=since,
    )
    refused = response is not None and b"request not signed" in response.payload
    run.report.check(
        "drive.bridge.permit_join_signed_only",
        permit is None and refused,
        f"Permit pairing button: {'present' if permit else 'absent'}; unsigned permit_join answered "
        f"{response.text if response is not None else 'nothing'}",
    )
    for device in diffusers:
        rule = device.profile.timed_maintenance_rule()
        if rule is not None:
            await _press_mark_done(run, device, rule, entities)


async def _press_mark_done(run, device, rule, entities):
    """Marks a time-based task done from Home Assistant: the gateway answers ok and the
    rule's "next due" sensor moves (its days count from now)."""
    key = "maintenance_" + rule["type"].replace("-", "_")
    button = entities.get(f"{BASE}_{device.id}_{key}_done")
    next_due = entities.get(f"{BASE}_{device.id}_{key}_next_due")
    check = f"drive.{device.label}.{key}_done_button"
    if button is None or button.get("disabled_by"):
        run.report.fail(check, f"the button is {'missing' if button is None else 'still disabled'}")
        return
    before = run.states.state(next_due["entity_id"]) if next_due else None
    expected = {"device": device.name, "type": rule["type"]}
    if not await _press(run, check, button["entity_id"], "maintenance/done", expected) or next_due is None:
        return
    entity = next_due["entity_id"]
    moved = await run.states.wait(lambda: run.states.state(entity) not in (before, "unknown", "unavailable"), STATE_TIMEOUT)
    run.report.check(
        f"drive.{device.label}.{key}_next_due_follows",
        moved,
        f"{entity} is {run.states.state(entity)!r} (was {before!r}) after the task was marked done",
    )


async def _press(run, check, entity_id, verb, expected_request):
    since = time.time()
    try:
        await run.client.call_service("button", "press", {"entity_id": entity_id})
    except Exception as error:  # noqa: BLE001
        return run.report.fail(check, f"button.press: {error}")
    request_topic = f"{BASE}/bridge/request/{verb}"
    request = await run.recorder.wait_for(lambda m: m.topic == request_topic, STATE_TIMEOUT, since=since)
    response = await run.recorder.wait_for(lambda m: m.topic == f"{BASE}/bridge/response/{verb}", STATE_TIMEOUT, since=since)
    problems = []
    if request is None:
        problems.append(f"nothing published on {request_topic}")
    else:
        try:
            sent = json.loads(request.payload)
        except json.JSONDecodeError:
            sent = request.text
        if sent != expected_request:
            problems.append(f"{request_topic} got {request.text!r}, expected {json.dumps(expected_request)}")
    if response is None:
        problems.append(f"no answer on {BASE}/bridge/response/{verb}")
    else:
        try:
            answer = json.loads(response.payload)
        except json.JSONDecodeError:
            answer = {}
        if answer.get("status") != "ok":
            problems.append(f"the gateway answered {response.text[:300]}")
    return run.report.check(check, not problems, "; ".join(problems))
