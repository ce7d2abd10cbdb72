"""Simulated devices, started and paired only through the gateway's own tools.

A device kind is a small class: whether it can run here (the feature exists in this
checkout), what it adds to the gateway's configuration, how it starts its simulated
devices, and how they are paired. Everything after pairing (entities, driving, restarts,
rename, remove) is the same for every kind, so adding one is a few lines in `KINDS`.

- `mqtt`: `youll-devices simulate` (Tuya's MQTT device protocol on the private broker),
  paired with `pair import devices.json`.
- `lan`: `youll-devices simulate --lan` (Tuya's LAN protocol on loopback; devices.json
  carries each device's ip and version), paired with `pair import`. Active when
  `simulate --help` mentions `--lan`. tinytuya, the reference LAN client, must read each
  simulated device before the gateway pairs it.
- `ble`: a Bumble virtual controller with Tuya BLE peripherals
  (`Tests/Python/bumble_tuya_peripheral.py`, run with the tinytuya/Bumble environment),
  the gateway's userspace HCI host reaching it over `ble.transport: h4-tcp:HOST:PORT`.
  Active when that script exists.
"""

import asyncio
import json
import os
import time

from harness.processes import free_port, run
from harness.profiles import profile_for_product


class SimulatedDevice:
    def __init__(self, kind, entry, profile):
        self.kind = kind
        self.entry = entry  # its devices.json entry (holds the local key: never print it)
        self.id = entry["id"]
        self.name = entry["name"]  # the friendly name after pairing; follows renames
        self.original_name = self.name
        self.product_id = entry.get("product_id", "")
        self.profile = profile
        self.removed = False
        self.exercised = True
        self.label = f"{kind}-{entry['id']}"  # the driver gives a shorter one: mqtt-light-1

    @property
    def is_light(self):
        return self.profile.is_light

    def __repr__(self):
        return f"{self.name} ({self.kind}, {self.profile.id})"


class KindContext:
    """What a kind may use: the run's processes, broker, gateway, profiles and tools."""

    def __init__(self, processes, broker, gateway, profiles, directory, repository, binary, python_tools):
        self.processes = processes
        self.broker = broker
        self.gateway = gateway
        self.profiles = profiles
        self.directory = directory
        self.repository = repository
        self.binary = binary
        self.python_tools = python_tools
        self._simulate_help = None

    async def simulate_help(self):
        if self._simulate_help is None:
            _, out, err = await run([self.binary, "simulate", "--help"], timeout=30)
            self._simulate_help = out + err
        return self._simulate_help


class DeviceKind:
    name = "?"
    # False: the kind's devices are discovered and restarted with the others but not
    # driven, renamed or removed (see the slow MQTT devices).
    exercised = True
    # True when `configure` adds to the gateway's configuration.
    configures_gateway = False

    async def unavailable_reason(self, context):
        """None when this kind can run in this checkout, else why not (printed, not a failure)."""
        return None

    def configure(self, context):
        """Adds what the kind needs to the gateway's configuration before it starts."""

    async def start(self, context):
        """Starts the simulated devices; returns them (not yet paired)."""
        raise NotImplementedError

    async def pair(self, context, devices):
        """Pairs `devices` through the gateway: {device id: error text or None}."""
        return await pair_import(context, self.name, devices)


async def wait_for_file(path, process_name, context, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return
        child = context.processes.children.get(process_name)
        if child is not None and not child.running:
            raise RuntimeError(f"{process_name} exited before writing {os.path.basename(path)}:\n{child.log_tail()}")
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{process_name} did not write {os.path.basename(path)} within {timeout:.0f} s")


def devices_from_json(kind, path, profiles):
    with open(path) as file:
        entries = json.load(file)
    devices = []
    for entry in entries:
        if kind != "mqtt":
            # Friendly names are unique per gateway; every simulator numbers from 1.
            entry["name"] = f"{entry['name']} ({kind})"
        profile = profiles.get(entry.get("profile", "")) or profile_for_product(profiles, entry.get("product_id", ""))
        if profile is None:
            raise RuntimeError(f"{kind}: no profile in devices/ has product id {entry.get('product_id')!r}")
        devices.append(SimulatedDevice(kind, entry, profile))
    return devices


async def pair_import(context, kind, devices):
    """`youll-devices pair import` of a devices.json holding just `devices`."""
    path = os.path.join(context.directory, f"pair-{kind}-{time.monotonic_ns()}.json")
    with open(path, "w") as file:
        json.dump([d.entry for d in devices], file)
    os.chmod(path, 0o600)
    status, out, err = await context.gateway.cli("pair", "import", path, "--json", timeout=90)
    outcomes = {d.id: f"pair import exited {status}: {err.strip()[:300]}" for d in devices}
    try:
        for outcome in json.loads(out.strip().splitlines()[-1]) if out.strip() else []:
            if outcome.get("status") == "ok":
                outcomes[outcome["id"]] = None
            else:
                outcomes[outcome["id"]] = outcome.get("error") or json.dumps(outcome)
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        return {d.id: f"pair import: unreadable output ({error}): {out[:200]}" for d in devices}
    return outcomes


class MQTTKind(DeviceKind):
    """Tuya MQTT devices: `simulate --lights N --diffusers M` on the private broker."""

    # Per kind the suite renames the first light and diffuser and removes the last ones;
    # the middle diffuser stays untouched through every restart.
    def __init__(self, name="mqtt", lights=2, diffusers=3, seed=1, report_delay_ms=20, exercised=True):
        self.name, self.lights, self.diffusers, self.seed = name, lights, diffusers, seed
        self.report_delay_ms, self.exercised = report_delay_ms, exercised

    async def start(self, context):
        path = os.path.join(context.directory, f"devices-{self.name}.json")
        await context.processes.start(
            f"simulate-{self.name}",
            [
                context.binary, "simulate", "--lights", str(self.lights), "--diffusers", str(self.diffusers),
                "--broker", context.broker.url, "--devices-json", path, "--seed", str(self.seed),
                "--report-delay-ms", str(self.report_delay_ms),
                "--profiles", os.path.join(context.repository, "devices"),
            ],
            env=context.gateway.environment(),
        )
        await wait_for_file(path, f"simulate-{self.name}", context)
        devices = devices_from_json(self.name, path, context.profiles)
        for device in devices:
            device.exercised = self.exercised
        return devices


class LANKind(DeviceKind):
    """Tuya LAN devices on loopback: `simulate --lan`, with tinytuya reading each first."""

    name = "lan"

    def __init__(self, lights=1, diffusers=1, seed=2, base_address="127.0.77.1"):
        self.lights, self.diffusers, self.seed, self.base_address = lights, diffusers, seed, base_address

    async def unavailable_reason(self, context):
        if "--lan" not in await context.simulate_help():
            return "`youll-devices simulate --help` has no --lan (LAN devices not in this checkout yet)"
        return None

    async def start(self, context):
        path = os.path.join(context.directory, "devices-lan.json")
        await context.processes.start(
            "simulate-lan",
            [
                context.binary, "simulate", "--lan", str(self.lights + self.diffusers),
                "--lan-diffusers", str(self.diffusers), "--lan-base-address", self.base_address,
                "--devices-json", path, "--seed", str(self.seed),
                "--profiles", os.path.join(context.repository, "devices"),
            ],
            env=context.gateway.environment(),
        )
        await wait_for_file(path, "simulate-lan", context)
        return devices_from_json(self.name, path, context.profiles)

    async def pair(self, context, devices):
        outcomes = {}
        readable = []
        for device in devices:
            problem = await tinytuya_status(context, device)
            if problem is None:
                readable.append(device)
            else:
                outcomes[device.id] = f"tinytuya could not read it first: {problem}"
        if readable:
            outcomes.update(await pair_import(context, self.name, readable))
        return outcomes


async def tinytuya_status(context, device):
    """Reads the device's status with tinytuya (the reference LAN client); None when it
    answers with its data points, else what went wrong."""
    entry = device.entry
    script = (
        "import json, sys, tinytuya\n"
        "e = json.load(sys.stdin)\n"
        "d = tinytuya.Device(e['id'], e['ip'], e['key'], version=float(e['version']))\n"
        "d.set_socketTimeout(5); d.set_socketRetryLimit(2)\n"
        "print(json.dumps(d.status()))\n"
    )
    process = await asyncio.create_subprocess_exec(
        context.python_tools, "-c", script,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(json.dumps(entry).encode()), 30)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        return "no answer within 30 s"
    try:
        status = json.loads(out.decode().strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return f"exit {process.returncode}: {err.decode(errors='replace').strip()[-300:]}"
    if not isinstance(status, dict) or "dps" not in status:
        return f"answered {json.dumps(status)[:300]}"
    return None


class BLEKind(DeviceKind):
    """Tuya BLE peripherals on a Bumble virtual controller that the gateway's userspace HCI
    host reaches over H4 on TCP (`ble.transport: h4-tcp:127.0.0.1:PORT`).

    `Tests/Python/bumble_tuya_peripheral.py` runs the controllers and one full Bumble host per
    peripheral (`--peripheral JSON`, `--port`); it prints `ready port=N` once it listens and
    stops when its stdin closes. The peripherals here are the shipped BLE diffuser's product
    (`ble-diffuser-dituo`, FD50 layout, protocol 4). Pairing goes through `pair ble`, which
    sends `device/add` with `transport: ble`."""

    name = "ble"
    configures_gateway = True
    script = os.path.join("Tests", "Python", "bumble_tuya_peripheral.py")
    # The diffuser's data points as the peripheral starts: off, no mist, timer off, light off.
    DPS = {
        "1": ["bool", False], "2": ["bool", False], "3": ["enum", 0], "5": ["enum", 0], "6": ["value", 0],
        "7": ["bool", False], "9": ["value", 50], "12": ["enum", 0], "101": ["enum", 0],
    }

    def __init__(self, diffusers=1):
        self.diffusers = diffusers
        self.port = None

    async def unavailable_reason(self, context):
        if not os.path.exists(os.path.join(context.repository, self.script)):
            return f"{self.script} does not exist (BLE over Bumble not in this checkout yet)"
        return None

    def configure(self, context):
        self.port = free_port()
        context.gateway.extra_config["ble"] = {"enabled": "on", "transport": f"h4-tcp:127.0.0.1:{self.port}"}

    def peripherals(self):
        # Made-up but well-formed identities; the key is 16 printable characters as Tuya's are.
        for number in range(1, self.diffusers + 1):
            yield {
                "address": f"DC:23:4D:20:27:{number:02X}", "layout": "fd50", "uuid": f"interopbumble{number:03d}",
                "local_key": f"iNt3rop!Bumble{number:02d}", "dev_id": f"bfinteropble{number:010d}",
                "product_id": "if1nolcm", "protocol": 4, "dps": self.DPS, "bound": False, "gatt": "tuya",
                "public": True,
            }

    async def start(self, context):
        specs = list(self.peripherals())
        argv = [context.python_tools, os.path.join(context.repository, self.script), "--port", str(self.port)]
        for spec in specs:
            argv += ["--peripheral", json.dumps(spec)]
        child = await context.processes.start("bumble", argv, stdin_pipe=True)
        await wait_for_line(child, "ready port=", "bumble")
        entries = [
            {
                "id": spec["dev_id"], "key": spec["local_key"], "name": f"Bumble diffuser {number}",
                "product_id": spec["product_id"], "address": spec["address"], "uuid": spec["uuid"],
            }
            for number, spec in enumerate(specs, 1)
        ]
        path = os.path.join(context.directory, "devices-ble.json")
        with open(path, "w") as file:
            json.dump(entries, file)
        os.chmod(path, 0o600)
        return devices_from_json(self.name, path, context.profiles)

    async def pair(self, context, devices):
        outcomes = {}
        for device in devices:
            entry = device.entry
            arguments = [
                "pair", "ble", entry["address"], "--uuid", entry["uuid"], "--dev-id", device.id,
                "--product-id", device.product_id, "--name", device.name,
            ]
            if entry.get("random_address"):
                arguments.append("--random-address")
            env = dict(context.gateway.environment(), YOULL_LOCAL_KEY=entry["key"])
            status, _, err = await run(
                [context.binary, *arguments, "--config", context.gateway.config_path], env=env, timeout=90
            )
            outcomes[device.id] = None if status == 0 else f"pair ble exited {status}: {err.strip()[:300]}"
        return outcomes


async def wait_for_line(child, prefix, process_name, timeout=60.0):
    """Waits until the child's log has a line starting with `prefix`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(child.log_path, errors="replace") as log:
                if any(line.startswith(prefix) for line in log):
                    return
        except OSError:
            pass
        if not child.running:
            raise RuntimeError(f"{process_name} exited before printing {prefix!r}:\n{child.log_tail()}")
        await asyncio.sleep(0.1)
    raise RuntimeError(f"{process_name} did not print {prefix!r} within {timeout:.0f} s")


# The kinds the suite runs, in order. Another kind is a class above and one entry here.
KINDS = [
    MQTTKind(),
    # A light that takes 0.8 s to answer, as some Wi-Fi bulbs do: when the gateway starts it
    # has not answered yet, so whatever the gateway announces for a device it has not heard
    # from is seen every time, not only when the start-up happens to race that way.
    MQTTKind(name="mqtt-slow", lights=1, diffusers=0, seed=3, report_delay_ms=800, exercised=False),
    LANKind(),
    BLEKind(),
]
