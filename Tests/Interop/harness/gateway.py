"""The gateway under test: `youll-devices serve` with a configuration file in the temp
directory (private broker, state directory, no metrics listener, BLE only when a device
kind brings a transport), and its CLI pointed at the same file."""

import json
import os
import time

from harness.processes import run


class Gateway:
    def __init__(self, binary, processes, recorder, directory, broker, repository):
        self.binary = binary
        self.processes = processes
        self.recorder = recorder
        self.directory = directory
        self.broker = broker
        self.repository = repository
        self.state_directory = os.path.join(directory, "state")
        self.config_path = os.path.join(directory, "config.yaml")
        self.extra_config = {}  # top-level sections device kinds add (e.g. `ble`)
        self.starts = []  # time.time() of every start

    def environment(self):
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("YOULL_") and key not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")
        }
        # Keep the user's own configuration and profiles out of the run.
        env["XDG_CONFIG_HOME"] = os.path.join(self.directory, "xdg-config")
        env["XDG_STATE_HOME"] = os.path.join(self.directory, "xdg-state")
        env["NO_COLOR"] = "1"
        return env

    def write_config(self):
        sections = {
            "mqtt": {"url": self.broker.url},
            "base_topic": "youll",
            "state_directory": self.state_directory,
            "profiles": {"installed": os.path.join(self.repository, "devices")},
            "home_assistant": {"enabled": True, "prefix": "homeassistant"},
            "metrics": {"enabled": False},
            "ble": {"enabled": "off"},
            "log_level": "debug",
        }
        sections.update(self.extra_config)
        with open(self.config_path, "w") as config:
            # JSON is YAML: no YAML writer needed, and every string is quoted.
            for key, value in sections.items():
                config.write(f"{key}: {json.dumps(value)}\n")

    async def start(self, timeout=30.0):
        """Starts `serve` and waits for it to say `online` on `youll/bridge/state`."""
        self.write_config()
        started = time.time()
        self.starts.append(started)
        await self.processes.start("gateway", [self.binary, "serve", "--config", self.config_path], env=self.environment())
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            online = await self.recorder.wait_for(
                lambda m: m.topic == "youll/bridge/state" and b'"online"' in m.payload and not m.retained,
                timeout=0.5,
                since=started,
            )
            if online is not None:
                return started
            if not self.running:
                break
        child = self.processes.children.get("gateway")
        tail = child.log_tail() if child else ""
        what = "exited" if not self.running else f"did not publish online within {timeout:.0f} s"
        raise RuntimeError(f"the gateway {what}; its log ends:\n{tail}")

    async def stop(self):
        """SIGTERM, as systemd stops it; returns the exit status."""
        return await self.processes.stop("gateway", timeout=30)

    @property
    def running(self):
        child = self.processes.children.get("gateway")
        return child is not None and child.running

    async def cli(self, *arguments, timeout=60.0):
        """Runs a CLI command against the daemon: (status, stdout, stderr)."""
        argv = [self.binary, *arguments, "--config", self.config_path]
        return await run(argv, env=self.environment(), timeout=timeout)

    async def cli_json(self, *arguments, timeout=60.0):
        """A CLI command with `--json`: its parsed output, or raises naming what failed."""
        status, out, err = await self.cli(*arguments, "--json", timeout=timeout)
        if status != 0:
            raise GatewayCommandError(f"youll-devices {' '.join(arguments)}: exit {status}: {err.strip() or out.strip()}")
        lines = [line for line in out.splitlines() if line.strip()]
        try:
            if len(lines) == 1:
                return json.loads(lines[0])
            return [json.loads(line) for line in lines]
        except json.JSONDecodeError as error:
            raise GatewayCommandError(f"youll-devices {' '.join(arguments)}: not JSON ({error}): {out[:200]}")

    async def get(self, name):
        """The device's confirmed state as `youll-devices get NAME --json` shows it."""
        return await self.cli_json("get", name)

    async def devices(self):
        listed = await self.cli_json("devices")
        return listed if isinstance(listed, list) else [listed]


class GatewayCommandError(Exception):
    pass
