"""The interop suite's driver (run by scripts/interop with Home Assistant's Python).

Starts, all on loopback on free ports and in one temp directory: a private mosquitto, a
recorder of everything published on it, the simulated devices of every device kind this
checkout has, the gateway (`youll-devices serve`), and a headless Home Assistant with the
MQTT integration set up through its own config flow. Then checks, through Home Assistant's
REST and websocket APIs: discovery, driving, restarts of each part, rename and remove, and
Home Assistant's log. Prints `ok`/`FAIL` per check, BENCH lines for the latency from a
service call until Home Assistant shows its result, and exits non-zero when a check failed.
Every process it started is stopped at the end, also on failure, Ctrl-C or SIGTERM."""

import argparse
import asyncio
import os
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from checks import discovery, driving, lifecycle, logs, restarts  # noqa: E402
from harness.devices import KINDS, KindContext  # noqa: E402
from harness.gateway import Gateway  # noqa: E402
from harness.homeassistant import HomeAssistant  # noqa: E402
from harness.mqtt import Broker, Recorder  # noqa: E402
from harness.processes import Processes, free_port  # noqa: E402
from harness.profiles import load_profiles  # noqa: E402
from harness.report import Report  # noqa: E402
from harness.run import BASE, Run  # noqa: E402


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gateway", required=True, help="the youll-devices binary")
    parser.add_argument("--hass", required=True, help="Home Assistant's `hass` in its virtual environment")
    parser.add_argument("--python-tools", required=True, help="python of the tinytuya/Bumble environment")
    parser.add_argument("--repository", required=True)
    parser.add_argument("--install-seconds", type=float)
    parser.add_argument("--keep-temp", action="store_true", help="keep the temp directory (logs, configs)")
    return parser.parse_args()


async def start_everything(run, options, directory):
    """Broker, recorder, device kinds, gateway and Home Assistant; pairs the devices (all
    but one light of each kind before Home Assistant has the MQTT integration, that light
    after, so discovery is checked both from retained configs and live)."""
    run.report.phase("starting the broker, devices, gateway and Home Assistant")
    context, simulated, ha_started = await start_processes(run, options, directory)
    late = {}
    for kind, devices in simulated.items():
        lights = [d for d in devices if d.is_light]
        late[kind] = lights[-1:] if len(lights) > 1 else []
        await pair(run, kind, context, [d for d in devices if d not in late[kind]])
    await ha_started
    await set_up_home_assistant(run)
    await discovery.check_discovery(run, list(run.present), "discovery")
    for kind, devices in late.items():
        if devices:
            await pair(run, kind, context, devices)
    if any(late.values()):
        await discovery.check_discovery(run, [d for ds in late.values() for d in ds], "discovery_live")


async def start_processes(run, options, directory):
    """Starts everything; returns the kinds' context, their simulated devices (not paired
    yet) and the task that finishes Home Assistant's start."""
    report = run.report
    run.broker = Broker(run.processes, os.path.join(directory, "broker"), free_port())
    await run.broker.start()
    run.recorder = Recorder(run.processes, run.broker)
    await run.recorder.start()
    run.gateway = Gateway(options.gateway, run.processes, run.recorder, directory, run.broker, options.repository)
    context = KindContext(
        run.processes, run.broker, run.gateway, run.profiles, directory, options.repository, options.gateway,
        options.python_tools,
    )
    active = []
    for kind in KINDS:
        reason = await kind.unavailable_reason(context)
        if reason:
            report.note(f"device kind {kind.name}: not run: {reason}")
        else:
            kind.configure(context)
            active.append(kind)
    run.ha = HomeAssistant(options.hass, run.processes, directory, free_port())
    ha_started = asyncio.create_task(run.ha.start())  # slow (~20-60 s): overlaps with the rest
    simulated = {}
    for kind in active:
        try:
            simulated[kind] = await kind.start(context)
        except Exception as error:  # noqa: BLE001 - the kind's failure, the rest goes on
            report.fail(f"start.{kind.name}_devices", str(error))
    await start_gateway(run, simulated)
    for kind, devices in simulated.items():
        for kind_of in ("light", "diffuser"):
            same = [d for d in devices if d.is_light == (kind_of == "light")]
            for number, device in enumerate(same, 1):
                device.label = f"{kind.name}-{kind_of}-{number}"
    return context, simulated, ha_started


async def start_gateway(run, simulated):
    """Starts the gateway; if it refuses what a device kind added to its configuration, that
    is the kind's failure: the run goes on without those kinds' devices."""
    if not run.gateway.extra_config:
        await run.gateway.start()
        return
    try:
        await run.gateway.start()
    except RuntimeError as error:
        added = sorted(run.gateway.extra_config)
        run.report.fail(f"start.gateway_with_{'_'.join(added)}_config", str(error))
        await run.gateway.stop()
        run.gateway.extra_config = {}
        for kind in [k for k in simulated if k.configures_gateway]:
            del simulated[kind]
        await run.gateway.start()


async def set_up_home_assistant(run):
    """Onboarding, a long-lived token, the MQTT integration and nothing else."""
    ha = run.ha
    await ha.onboard()
    await ha.connect()
    await run.restart_states()
    run.mqtt_entry_id = await ha.add_mqtt(run.broker.port)
    run.report.check("start.mqtt_integration_loaded", await ha.wait_entry_loaded("mqtt"), "the MQTT entry did not load")
    # `backup` is Home Assistant's own local backup entry, created at every start.
    extras = [e["domain"] for e in await ha.config_entries() if e["domain"] not in ("mqtt", "backup")]
    run.report.check("start.no_integration_but_mqtt", not extras, f"Home Assistant also runs {extras}")


async def pair(run, kind, context, devices):
    outcomes = await kind.pair(context, devices)
    for device in devices:
        error = outcomes.get(device.id, "no outcome")
        if run.report.check(f"pair.{device.label}", error is None, f"{device.name}: {error}"):
            run.devices.append(device)


async def enable_maintenance_buttons(run):
    """The "mark done" buttons are disabled by default (README); the suite enables them
    as a user would. Home Assistant reloads the entry 30 s later, or at its next start,
    which comes right after this."""
    _, entities = await run.registry()
    for device in run.present:
        for expected in run.expected(device):
            entry = entities.get(expected.unique_id)
            if entry is not None and not expected.enabled and entry.get("disabled_by"):
                await run.client.ws_call("config/entity_registry/update", entity_id=entry["entity_id"], disabled_by=None)


async def light_change_while_ha_down(run):
    """What to do while Home Assistant is stopped: switch the first light through the CLI
    (off if it shows on, else on), so after its restart Home Assistant must show what the
    gateway says, not what it remembered. Returns the coroutine function to call then."""
    light = next((d for d in run.present if d.is_light and d.exercised), None)
    if light is None:
        return None
    _, entities = await run.registry()
    entity = entities[f"{BASE}_{light.id}_light"]["entity_id"]
    target = "off" if run.states.state(entity) == "on" else "on"

    async def change():
        status, _, err = await run.gateway.cli("set", light.name, f"state={target.upper()}")
        run.report.check("ha_restart.cli_set_while_down", status == 0, f"youll-devices set: {err.strip()}")
        return {entity: target}

    return change


async def suite(run, options, directory):
    report = run.report
    await start_everything(run, options, directory)

    await enable_maintenance_buttons(run)
    await restarts.restart_home_assistant(run, await light_change_while_ha_down(run))
    await discovery.check_discovery(run, run.present, "after_ha_restart")

    report.phase("driving from Home Assistant")
    for device in [d for d in run.present if d.exercised]:
        if device.is_light:
            await driving.drive_light(run, device)
        else:
            await driving.drive_diffuser(run, device)
    await driving.press_buttons(run, [d for d in run.present if not d.is_light and d.exercised])

    await restarts.restart_gateway(run)

    report.phase("rename and remove")
    await rename_and_remove(run)
    # After rename and remove: the broker restart loses every retained topic, so the
    # checks above must have seen what a rename or removal left behind first.
    await restarts.restart_broker(run)
    await discovery.check_no_orphans(run, "final.no_orphans")
    await check_final_retained(run)

    report.phase("Home Assistant's log")
    log = run.ha.log_path
    logs.check_log(run, [log + ".1", log])


async def rename_and_remove(run):
    """Per device kind: renames the first light and the first diffuser, removes the last
    ones (which kept their names); the others stay through the broker restart."""
    for kind in sorted({d.kind for d in run.present if d.exercised}):
        devices = [d for d in run.present if d.kind == kind]
        lights = [d for d in devices if d.is_light]
        diffusers = [d for d in devices if not d.is_light]
        if lights:
            await lifecycle.rename(run, lights[0], f"Interop {kind} lamp")
        if diffusers:
            await lifecycle.rename(run, diffusers[0], f"Interop {kind} diffuser")
        for group in (lights, diffusers):
            if len(group) > 1:
                await lifecycle.remove(run, group[-1])


async def check_final_retained(run):
    """Every retained topic of the gateway belongs to the bridge or a paired device."""
    retained = await restarts.gateway_retained(run)
    stray = sorted(set(retained) - restarts.current_topics(run, retained))
    run.report.check("final.no_stray_retained_topics", not stray, f"retained for no current device: {stray}")


async def main():
    options = arguments()
    report = Report()
    directory = tempfile.mkdtemp(prefix="youll-interop-")
    run = Run(report)
    run.processes = Processes(os.path.join(directory, "logs"))
    run.profiles = load_profiles(os.path.join(options.repository, "devices"))
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, task.cancel)
    started = time.monotonic()
    interrupted = False
    try:
        await suite(run, options, directory)
    except asyncio.CancelledError:
        interrupted = True
        report.fail("run", "interrupted (SIGINT/SIGTERM): stopped every process")
    except Exception as error:  # noqa: BLE001 - any setup failure ends the run as a failure
        import traceback

        traceback.print_exc()
        report.fail("run", f"{type(error).__name__}: {error}")
    finally:
        # A second Ctrl-C (or timeout's SIGTERM after ours) must not cut the cleanup short.
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, lambda: print("interop: stopping, please wait", flush=True))
        # Tasks still under way (Home Assistant's start, the websocket readers) end first,
        # so nothing starts a process after the cleanup.
        others = [t for t in asyncio.all_tasks() if t is not task]
        for other in others:
            other.cancel()
        await asyncio.gather(*others, return_exceptions=True)
        if run.ha is not None and run.ha.client is not None:
            await run.ha.client.close()
        await run.processes.stop_all(last=("recorder", "mosquitto"))
        kept = keep_logs(directory, options, report)
        if options.keep_temp:
            report.note(f"temp directory kept: {directory}")
        else:
            shutil.rmtree(directory, ignore_errors=True)
    status = report.summary(options.install_seconds, time.monotonic() - started)
    if kept:
        print(f"interop: logs of this run in {kept}")
    return 130 if interrupted else status


def keep_logs(directory, options, report):
    """On failure, copies the run's logs (never the state or keys) under .build/interop/."""
    if not report.failed:
        return None
    target = os.path.join(options.repository, ".build", "interop", "last-failed-run")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target, exist_ok=True)
    for source in (os.path.join(directory, "logs"), os.path.join(directory, "homeassistant")):
        if not os.path.isdir(source):
            continue
        for name in os.listdir(source):
            if name.endswith(".log") or ".log." in name:
                shutil.copy(os.path.join(source, name), os.path.join(target, name))
    return target


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
