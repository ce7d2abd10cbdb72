"""The suite's output: one line per check (`ok <name>` / `FAIL <name>: <what happened>`),
`BENCH` lines, phase timings and a summary. A check is named once; its name says what
was checked, the failure says what happened instead."""

import statistics
import sys
import time


class Report:
    def __init__(self):
        self.passed = []
        self.failed = []  # (name, detail)
        self.latencies_ms = []  # service call -> state change, per call
        self.timings = []  # (phase, seconds)
        self._phase_start = None

    # -- checks -----------------------------------------------------------------------------

    def check(self, name, ok, detail=""):
        """Records one check; `detail` says what happened when it failed."""
        if ok:
            self.passed.append(name)
            print(f"ok {name}", flush=True)
        else:
            self.failed.append((name, detail))
            print(f"FAIL {name}: {one_line(detail)}", flush=True)
        return ok

    def expect_equal(self, name, actual, expected, what=""):
        label = f"{what}: " if what else ""
        return self.check(name, actual == expected, f"{label}expected {expected!r}, got {actual!r}")

    def fail(self, name, detail):
        return self.check(name, False, detail)

    def note(self, text):
        print(f"   {text}", flush=True)

    # -- phases and latency -----------------------------------------------------------------

    def phase(self, title):
        """Starts a named phase; the previous one's duration is recorded."""
        self.end_phase()
        self._phase_start = (title, time.monotonic())
        print(f"-- {title}", flush=True)

    def end_phase(self):
        if self._phase_start is not None:
            title, start = self._phase_start
            self.timings.append((title, time.monotonic() - start))
            self._phase_start = None

    def latency(self, milliseconds):
        self.latencies_ms.append(milliseconds)

    # -- summary ----------------------------------------------------------------------------

    def summary(self, install_seconds, checks_seconds):
        self.end_phase()
        if self.latencies_ms:
            p50 = statistics.median(self.latencies_ms)
            print(f"BENCH ha.service_to_state.p50 {p50:.1f} ms")
            print(f"BENCH ha.service_to_state.max {max(self.latencies_ms):.1f} ms")
            print(f"   ({len(self.latencies_ms)} service calls, each until Home Assistant's state showed the result)")
        else:
            print("   no service call reached a state change: no latency measured")
        print("== interop summary")
        for title, seconds in self.timings:
            print(f"   {seconds:6.1f} s  {title}")
        if install_seconds is not None:
            print(f"interop: install and build {install_seconds:.0f} s, checks {checks_seconds:.0f} s")
        else:
            print(f"interop: checks {checks_seconds:.0f} s")
        total = len(self.passed) + len(self.failed)
        if self.failed:
            print(f"interop: {len(self.failed)} of {total} checks FAILED:")
            for name, detail in self.failed:
                print(f"  FAIL {name}: {one_line(detail)}")
        else:
            print(f"interop: all {total} checks passed")
        sys.stdout.flush()
        return 1 if self.failed or total == 0 else 0


def one_line(text, limit=600):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
