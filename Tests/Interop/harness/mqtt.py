"""The private broker and two views of it through Debian's mosquitto clients:

- `Recorder`: everything published on the broker from the start of the run, each message
  with its arrival time, so checks can look at sequences (an availability that flaps, a
  republish after Home Assistant's birth message);
- `retained()`: what a new subscriber would get now (the retained topics), for checks that
  nothing is left behind after a rename or a removal.
"""

import asyncio
import os
import re
import time

from harness.processes import run


class Message:
    __slots__ = ("time", "retained", "topic", "payload")

    def __init__(self, time, retained, topic, payload):
        self.time = time
        self.retained = retained
        self.topic = topic
        self.payload = payload

    @property
    def text(self):
        return self.payload.decode(errors="replace")

    def __repr__(self):
        return f"{self.topic} {self.text!r}"


class Broker:
    """mosquitto on a free loopback port with TCP_NODELAY, as the README asks of users'
    brokers, and without persistence (as the eclipse-mosquitto image ships): a restart
    loses every retained message, and the gateway must publish them all again."""

    def __init__(self, processes, directory, port):
        self.processes = processes
        self.directory = directory
        self.port = port
        self.url = f"mqtt://127.0.0.1:{port}"
        self.config_path = os.path.join(directory, "mosquitto.conf")
        os.makedirs(directory, exist_ok=True)
        with open(self.config_path, "w") as config:
            config.write(
                f"listener {port} 127.0.0.1\n"
                "allow_anonymous true\n"
                "set_tcp_nodelay true\n"
                "persistence false\n"
                "log_dest stderr\n"
                "log_type error\nlog_type warning\nlog_type notice\n"
            )

    async def start(self):
        await self.processes.start("mosquitto", ["mosquitto", "-c", self.config_path])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                return
            except OSError:
                await asyncio.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on 127.0.0.1:{self.port} within 10 s")

    async def stop(self):
        return await self.processes.stop("mosquitto")

    async def publish(self, topic, payload, retain=False):
        argv = ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-q", "1", "-t", topic, "-m", payload]
        if retain:
            argv.append("-r")
        status, _, err = await run(argv, timeout=10)
        if status != 0:
            raise RuntimeError(f"mosquitto_pub {topic}: {err.strip()}")

    async def retained(self, *filters, wait=1.5):
        """The retained messages under `filters` now, as {topic: payload bytes}."""
        argv = ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "--retained-only", "-W", str(wait)]
        argv += ["-F", "%t %x"]
        for topic_filter in filters or ("#",):
            argv += ["-t", topic_filter]
        status, out, err = await run(argv, timeout=wait + 10)
        if status not in (0, 27):  # 27: the -W timeout, the normal end
            raise RuntimeError(f"mosquitto_sub --retained-only: {err.strip() or status}")
        found = {}
        for line in out.splitlines():
            topic, _, hex_payload = line.rpartition(" ")
            if topic:
                found[topic] = bytes.fromhex(hex_payload)
        return found


_LOCAL_KEY = re.compile(r'"local_key"\s*:\s*"(?:[^"\\]|\\.)*"')


class Recorder:
    """Every message on the broker (`#`, QoS 1) with the time it arrived here. mosquitto_sub
    reconnects and subscribes again by itself when the broker restarts."""

    def __init__(self, processes, broker):
        self.processes = processes
        self.broker = broker
        self.messages = []
        self._changed = asyncio.Condition()
        self._reader = None
        self._log = None

    async def start(self):
        argv = ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.broker.port), "-q", "1", "-t", "#"]
        argv += ["-i", f"interop-recorder-{os.getpid()}", "-F", "%U %r %t %x"]
        child = await self.processes.start("recorder", argv, stdout_pipe=True)
        self._log = open(child.log_path, "a")
        self._reader = asyncio.create_task(self._read(child.process.stdout))
        # Wait until it is subscribed: a message published now arrives.
        probe = f"interop/probe/{time.monotonic_ns()}"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            await self.broker.publish(probe, "1")
            if await self.wait_for(lambda m: m.topic == probe, timeout=0.5, since=0):
                return
        raise RuntimeError("the MQTT recorder (mosquitto_sub) did not subscribe within 10 s")

    async def _read(self, stream):
        while True:
            line = await stream.readline()
            if not line:
                return
            parts = line.decode(errors="replace").rstrip("\n").split(" ")
            if len(parts) < 4:
                continue
            stamp, retained, hex_payload = parts[0], parts[1], parts[-1]
            topic = " ".join(parts[2:-1])  # friendly names may hold spaces
            try:
                message = Message(float(stamp), retained == "1", topic, bytes.fromhex(hex_payload))
            except ValueError:
                continue
            self._write(message)
            async with self._changed:
                self.messages.append(message)
                self._changed.notify_all()

    def _write(self, message):
        """One line per message in the recorder's log, local keys redacted; device frames
        (encrypted) by length only."""
        if message.topic.startswith("smart/"):
            text = f"<{len(message.payload)} bytes>"
        else:
            text = _LOCAL_KEY.sub('"local_key":"<redacted>"', message.text)
        stamp = time.strftime("%H:%M:%S", time.localtime(message.time)) + f"{message.time % 1:.3f}"[1:]
        self._log.write(f"{stamp} {'R' if message.retained else '-'} {message.topic} {text}\n")
        self._log.flush()

    def since(self, start, topic=None, prefix=None):
        return [
            m
            for m in self.messages
            if m.time >= start and (topic is None or m.topic == topic) and (prefix is None or m.topic.startswith(prefix))
        ]

    async def wait_for(self, predicate, timeout, since=None):
        """The first message since `since` (a time.time(); default now) matching `predicate`,
        or None after `timeout` s."""
        start = time.time() if since is None else since
        deadline = time.monotonic() + timeout
        index = 0
        async with self._changed:
            while True:
                while index < len(self.messages):
                    message = self.messages[index]
                    index += 1
                    if message.time >= start and predicate(message):
                        return message
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                try:
                    await asyncio.wait_for(self._changed.wait(), remaining)
                except asyncio.TimeoutError:
                    pass
