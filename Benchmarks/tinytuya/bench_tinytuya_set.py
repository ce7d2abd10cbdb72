"""The peer's command round trip: tinytuya's Device.set_value to one simulated LAN device
on one persistent connection, timed per call, as youll-bench lan-link times
TuyaController.send to the same device.

  bench_tinytuya_set.py ID IP KEY VERSION DP SAMPLES

Prints `BENCH tinytuya.lanNN.setvalue.p50 <us> us` and `.p99` in the project's format:
tinytuya as users run it, which sleeps `sendWait` (10 ms by default) after each send, and
`tinytuya.lanNN.setvalue-nowait.*` with `set_sendWait(None)`, its bare round trip.
Only tinytuya's own API is used.
"""

import sys
import time

import tinytuya


def round_trips(dev, dp, samples):
    """Microseconds per set_value, sorted, after 50 unmeasured calls."""
    times = []
    for index in range(samples + 50):
        value = 10 + (index % 80) * 10
        started = time.perf_counter()
        answer = dev.set_value(dp, value)
        elapsed = time.perf_counter() - started
        if not answer or "Error" in answer or answer.get("dps", {}).get(str(dp)) != value:
            raise SystemExit("tinytuya set_value %d=%d got %r" % (dp, value, answer))
        if index >= 50:
            times.append(elapsed * 1e6)
    return sorted(times)


def main():
    dev_id, ip, key, version, dp, samples = sys.argv[1:7]
    dp, samples = int(dp), int(samples)
    dev = tinytuya.Device(dev_id, ip, key, version=float(version), persist=True,
                          connection_timeout=5, connection_retry_limit=1, connection_retry_delay=0)
    name = "lan%d" % round(float(version) * 10)
    try:
        dev.status()
        for suffix, wait in (("", dev.sendWait), ("-nowait", None)):
            dev.set_sendWait(wait)
            times = round_trips(dev, dp, samples)
            print(f"BENCH tinytuya.{name}.setvalue{suffix}.p50 {times[len(times) // 2]:.1f} us")
            print(f"BENCH tinytuya.{name}.setvalue{suffix}.p99 {times[len(times) * 99 // 100]:.1f} us")
    finally:
        dev.close()


if __name__ == "__main__":
    main()
