"""tinytuya as a client of youll-devices' simulated LAN devices (DeviceSimulatorTests/LAN).

  tinytuya_client.py device ID IP PORT KEY VERSION DP VALUE_JSON
      Device.status(), set_value(DP, VALUE), status() again on one persistent connection.
  tinytuya_client.py solicitation IP
      The datagram tinytuya's scanner broadcasts to port 7000 (its send_discovery_request packing).
  tinytuya_client.py udp HEX
      A discovery datagram read by tinytuya.decrypt_udp.
  tinytuya_client.py scan PORT_6666 PORT_6667 PORT_7000 SECONDS ID...
      tinytuya's scanner (scanner.devices) listening on the given ports instead of
      6666/6667/7000, sending its 3.5 solicitation to the loopback broadcast address only.

Prints one JSON object on its last line. Only tinytuya's own API is used; the port and
interface settings are the scanner's module variables, so tests never bind the real ports.
"""

import json
import sys

import tinytuya
from tinytuya import scanner


def device(dev_id, ip, port, key, version, dp, value):
    dev = tinytuya.Device(dev_id, ip, key, version=float(version), persist=True, port=int(port),
                          connection_timeout=5, connection_retry_limit=1, connection_retry_delay=0)
    try:
        before = dev.status()
        written = dev.set_value(int(dp), json.loads(value))
        after = dev.status()
    finally:
        dev.close()
    return {"before": before, "set": written, "after": after}


def scan(port_plain, port_encrypted, port_app, seconds, ids):
    scanner.UDPPORT = int(port_plain)
    scanner.UDPPORTS = int(port_encrypted)
    scanner.UDPPORTAPP = int(port_app)
    scanner.get_ip_to_broadcast = lambda: {"127.255.255.255": "127.0.0.1"}
    found = scanner.devices(verbose=False, scantime=float(seconds), color=False, poll=False, byID=True,
                            wantids=list(ids), assume_yes=True, tuyadevices=[{"id": "none", "key": ""}])
    return {"devices": found}


def solicitation(ip):
    body = json.dumps({"from": "app", "ip": ip}).encode()
    msg = tinytuya.TuyaMessage(0, tinytuya.REQ_DEVINFO, None, body, 0, True, tinytuya.PREFIX_6699_VALUE, True)
    return {"hex": tinytuya.pack_message(msg, hmac_key=tinytuya.udpkey).hex()}


def udp(hex_text):
    return {"json": json.loads(tinytuya.decrypt_udp(bytes.fromhex(hex_text)))}


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "device":
        result = device(*args)
    elif command == "solicitation":
        result = solicitation(args[0])
    elif command == "udp":
        result = udp(args[0])
    else:
        result = scan(args[0], args[1], args[2], args[3], args[4:])
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main()
