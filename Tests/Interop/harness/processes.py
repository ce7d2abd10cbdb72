"""Child processes the suite starts (broker, gateway, simulators, Home Assistant): each
logs into the run's temp directory, and every one is stopped at the end, also when a
check fails, on Ctrl-C, or when the driver itself is killed (PR_SET_PDEATHSIG)."""

import asyncio
import ctypes
import os
import signal
import socket

_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    # Runs in the child between fork and exec: if the driver dies without cleaning up
    # (SIGKILL), the kernel sends the child SIGKILL instead of leaving it running.
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass


def free_port():
    """A TCP port on loopback that nothing listens on now (chosen by the kernel)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Child:
    def __init__(self, name, process, log_path):
        self.name = name
        self.process = process
        self.log_path = log_path

    @property
    def running(self):
        return self.process.returncode is None

    def log_tail(self, lines=20):
        try:
            with open(self.log_path, errors="replace") as log:
                return "".join(log.readlines()[-lines:])
        except OSError:
            return ""


class Processes:
    """Starts and stops the run's processes; names are unique while running."""

    def __init__(self, log_directory):
        self.log_directory = log_directory
        self.children = {}
        os.makedirs(log_directory, exist_ok=True)

    async def start(self, name, argv, env=None, cwd=None, stdout_pipe=False, stdin_pipe=False):
        """Starts `argv`; stderr (and stdout unless piped) go to `<logs>/<name>.log`. With
        `stdin_pipe` its stdin stays open until the run ends (for children that stop when
        their stdin closes)."""
        if name in self.children and self.children[name].running:
            raise RuntimeError(f"{name} is already running")
        log_path = os.path.join(self.log_directory, f"{name}.log")
        log = open(log_path, "ab")
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE if stdin_pipe else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE if stdout_pipe else log,
                stderr=log,
                env=env,
                cwd=cwd,
                start_new_session=True,  # Ctrl-C reaches the driver only; it stops them in order
                preexec_fn=_die_with_parent,
            )
        finally:
            log.close()
        child = Child(name, process, log_path)
        self.children[name] = child
        return child

    async def stop(self, name, sig=signal.SIGTERM, timeout=30.0):
        """Sends `sig`, waits up to `timeout` s, then kills. Returns the exit status."""
        child = self.children.get(name)
        if child is None:
            return None
        process = child.process
        if process.returncode is None:
            try:
                process.send_signal(sig)
            except ProcessLookupError:
                pass
            try:
                await asyncio.wait_for(process.wait(), timeout)
            except asyncio.TimeoutError:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                await process.wait()
        del self.children[name]
        return process.returncode

    async def stop_all(self, last=()):
        """Stops everything, newest first, the `last` names (in that order) at the end."""
        names = [n for n in reversed(list(self.children)) if n not in last] + [n for n in last if n in self.children]
        for name in names:
            try:
                await asyncio.shield(self.stop(name, timeout=20.0))
            except BaseException:  # noqa: BLE001 - keep stopping the others
                child = self.children.pop(name, None)
                if child is not None and child.running:
                    try:
                        child.process.kill()
                    except ProcessLookupError:
                        pass


async def run(argv, env=None, timeout=60.0, cwd=None):
    """Runs a short command to completion: (exit status, stdout, stderr); the status is
    None when it did not finish within `timeout` s (it is killed)."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=cwd,
        preexec_fn=_die_with_parent,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), timeout)
    except (asyncio.TimeoutError, asyncio.CancelledError) as error:
        try:
            process.kill()
        except ProcessLookupError:
            pass
        await process.wait()
        if isinstance(error, asyncio.CancelledError):
            raise
        return None, "", f"{argv[0]}: no answer after {timeout:.0f} s"
    return process.returncode, out.decode(errors="replace"), err.decode(errors="replace")
