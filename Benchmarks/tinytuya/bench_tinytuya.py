"""The peer benchmark: tinytuya packing and unpacking a Tuya LAN protocol-3.3 message
(and with --lan, its LAN client codec for 3.3, 3.4 and 3.5).

It is the same work as youll-devices' MQTT "2.2" codec (AES-128-ECB with PKCS#7,
CRC-32, compact JSON) done the way tinytuya does it (XenonDevice._encode_message /
_decode_payload for version 3.3). Run by scripts/bench inside a private virtualenv;
prints `BENCH` lines in the project's format.
"""

import json
import sys
import time

import tinytuya
from tinytuya.core import message_helper
from tinytuya.core.crypto_helper import AESCipher
from tinytuya.core.header import PREFIX_55AA_VALUE, PROTOCOL_33_HEADER
from tinytuya.core.message_helper import MessagePayload, TuyaMessage

LOCAL_KEY = b"0123456789abcdef"
CONTROL = 7


def pack(cipher, body, seqno):
    payload = json.dumps(body, separators=(",", ":")).encode()
    payload = cipher.encrypt(payload, False)
    payload = PROTOCOL_33_HEADER + payload
    msg = TuyaMessage(seqno, CONTROL, None, payload, 0, True, PREFIX_55AA_VALUE, False)
    return message_helper.pack_message(msg, hmac_key=None)


def unpack(cipher, data):
    msg = message_helper.unpack_message(data, hmac_key=None, no_retcode=True)
    if not msg.crc_good:
        raise ValueError("CRC mismatch")
    payload = msg.payload
    if payload.startswith(b"3.3"):
        payload = payload[len(PROTOCOL_33_HEADER):]
    return json.loads(cipher.decrypt(payload, False))


def lan_device(version, key):
    """A tinytuya Device that never connects: its own encoder and decoder, keyed as after
    the handshake (3.4/3.5 use a session key)."""
    dev = tinytuya.Device("bf0123456789abcdef01", "127.0.0.1", LOCAL_KEY.decode(), version=version)
    dev.local_key = key
    return dev


def lan_answer(version, key, body):
    """A device's STATUS push for the decode figure, packed with tinytuya's pack_message."""
    header = (b"%.1f" % version) + bytes(12)
    if version >= 3.5:
        msg = TuyaMessage(1, 8, 0, header + body, 0, True, tinytuya.PREFIX_6699_VALUE, True)
        return message_helper.pack_message(msg, hmac_key=key)
    if version >= 3.4:
        payload = bytes(4) + AESCipher(key).encrypt(header + body, False)
        return message_helper.pack_message(TuyaMessage(1, 8, None, payload, 0, True), hmac_key=key)
    payload = bytes(4) + header + AESCipher(key).encrypt(body, False)
    return message_helper.pack_message(TuyaMessage(1, 8, None, payload, 0, True), hmac_key=None)


def lan_figures(body_text, seconds):
    """tinytuya's LAN client work per version: Device._encode_message for a request, and
    unpack_message + Device._decode_payload for a device's answer."""
    body = body_text.encode()
    for version, key in ((3.3, LOCAL_KEY), (3.4, b"SessionKey-16byt"), (3.5, b"SessionKey-16byt")):
        dev = lan_device(version, key)
        command = tinytuya.CONTROL_NEW if version >= 3.4 else tinytuya.CONTROL
        answer = lan_answer(version, key, body)
        hmac_key = key if version >= 3.4 else None
        decoded = dev._decode_payload(message_helper.unpack_message(answer, hmac_key=hmac_key).payload)
        if "dps" not in json.loads(body):
            decoded.pop("dps", None)  # tinytuya lifts data.dps to the top level
        if decoded != json.loads(body):
            raise SystemExit("tinytuya LAN %.1f round trip failed: %r" % (version, decoded))

        def encode():
            dev._encode_message(MessagePayload(command, body))

        def decode():
            dev._decode_payload(message_helper.unpack_message(answer, hmac_key=hmac_key).payload)

        name = "lan%d" % round(version * 10)
        print(f"BENCH tinytuya.{name}.encode {rate(encode, seconds):.0f} frames/s")
        print(f"BENCH tinytuya.{name}.decode {rate(decode, seconds):.0f} frames/s")


def rate(fn, seconds):
    """Operations per second: best of three timed runs of about `seconds` each."""
    best = 0.0
    batch = 2000
    for _ in range(3):
        count = 0
        start = time.perf_counter()
        while True:
            for _ in range(batch):
                fn()
            count += batch
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        best = max(best, count / elapsed)
    return best


def main():
    body_text = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    body = json.loads(body_text)
    cipher = AESCipher(LOCAL_KEY)
    frame = pack(cipher, body, 1)
    if unpack(cipher, frame) != body:
        raise SystemExit("tinytuya round trip failed")
    seq = [0]

    def do_pack():
        seq[0] += 1
        pack(cipher, body, seq[0])

    print(f"# peer: tinytuya {tinytuya.__version__}, protocol 3.3, body {len(body_text)} bytes")
    print(f"BENCH tinytuya.pack33 {rate(do_pack, seconds):.0f} frames/s")
    print(f"BENCH tinytuya.unpack33 {rate(lambda: unpack(cipher, frame), seconds):.0f} frames/s")
    if len(sys.argv) > 3 and sys.argv[3] == "--lan":
        lan_figures(body_text, seconds)


if __name__ == "__main__":
    main()
