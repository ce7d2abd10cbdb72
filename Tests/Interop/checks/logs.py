"""Home Assistant's own log: any warning or error that names the gateway's topics, ids or
templates means Home Assistant disliked something the gateway published."""

import re

from harness.run import BASE

RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? (DEBUG|INFO|WARNING|ERROR|CRITICAL) ")


def records(path):
    """(level, text) of each log record, continuation lines (tracebacks) included."""
    try:
        with open(path, errors="replace") as log:
            lines = log.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        match = RECORD.match(line)
        if match:
            found.append([match.group(1), line])
        elif found:
            found[-1][1] += "\n" + line
    return [(level, text) for level, text in found]


def mentions_gateway(text, names):
    needles = [f"{BASE}/", f"{BASE}_", "value_json", "homeassistant/device/"] + list(names)
    return any(needle in text for needle in needles)


def check_log(run, paths):
    """Scans every log file Home Assistant wrote in the run (it rotates at each start)."""
    device_ids = [d.id for d in run.devices] + sorted(getattr(run, "seen_entity_ids", ()))
    findings = []
    for path in paths:
        for level, text in records(path):
            if level in ("WARNING", "ERROR", "CRITICAL") and mentions_gateway(text, device_ids):
                findings.append(text)
    for text in findings[:10]:
        run.report.note("HA log: " + " ".join(text.split())[:400])
    run.report.check(
        "ha_log.no_warning_about_the_gateway",
        not findings,
        f"{len(findings)} warnings/errors name the gateway's topics or templates, first: "
        + (" ".join(findings[0].split())[:500] if findings else ""),
    )
