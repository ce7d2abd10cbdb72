"""tinytuya as the outside reference for youll-devices' Tuya LAN codec (TuyaWireTests/LAN).

Reads one JSON request per line on stdin and answers each with one JSON line on stdout.
Every operation is tinytuya's own code: Device._encode_message / _decode_payload /
generate_payload, the session-key steps (_negotiate_session_key_generate_*),
message_helper.pack_message / unpack_message, AESCipher and udp_helper.decrypt_udp.
Frames a device sends, which tinytuya never writes, are packed by pack_message from parts
the Swift test lists (clear bytes, or bytes to AES-ECB-encrypt with a key); the layout
rules live in the Swift test, next to the protocol facts they come from.
"""

import hmac
import json
import sys
from hashlib import sha256

import tinytuya
from tinytuya.core import header as H
from tinytuya.core import message_helper
from tinytuya.core.crypto_helper import AESCipher
from tinytuya.core.message_helper import MessagePayload, TuyaMessage

DEV_ID = "bf0123456789abcdef01"
handshakes = {}


def key_bytes(req, name="key_hex"):
    """A key given as hex, or the broadcast key for "udp"."""
    value = req.get(name)
    if value is None:
        return None
    if value == "udp":
        return tinytuya.udpkey
    return bytes.fromhex(value)


def make_device(req):
    dev = tinytuya.Device(req.get("dev_id", DEV_ID), "127.0.0.1", req["local_key"], version=float(req["version"]))
    if req.get("key_hex"):
        dev.local_key = key_bytes(req)
    if "seq" in req:
        dev.seqno = req["seq"]
    return dev


def payload_of(req):
    if "payload_hex" in req:
        return bytes.fromhex(req["payload_hex"])
    return req.get("payload", "").encode()


def op_client_encode(req):
    dev = make_device(req)
    frame = dev._encode_message(MessagePayload(req["cmd"], payload_of(req)))
    return {"hex": frame.hex()}


def op_generate_payload(req):
    dev = make_device(req)
    command = getattr(tinytuya, req["command"])
    message = dev.generate_payload(command, req.get("data"))
    return {"cmd": message.cmd, "payload": message.payload.decode()}


def op_unpack(req):
    data = bytes.fromhex(req["hex"])
    msg = message_helper.unpack_message(data, hmac_key=key_bytes(req), no_retcode=req.get("no_retcode", False))
    return {
        "seqno": msg.seqno, "cmd": msg.cmd, "retcode": msg.retcode, "payload_hex": msg.payload.hex(),
        "crc_good": bool(msg.crc_good),
    }


def op_decode_payload(req):
    dev = make_device(req)
    result = dev._decode_payload(bytes.fromhex(req["payload_hex"]))
    return {"result": result}


def op_device_pack(req):
    payload = b""
    for part in req["parts"]:
        if "raw_hex" in part:
            payload += bytes.fromhex(part["raw_hex"])
        else:
            payload += AESCipher(key_bytes(part)).encrypt(bytes.fromhex(part["ecb_hex"]), False)
    prefix = H.PREFIX_6699_VALUE if req.get("gcm") else H.PREFIX_55AA_VALUE
    iv = bytes.fromhex(req["iv_hex"]) if req.get("iv_hex") else True
    msg = TuyaMessage(req["seq"], req["cmd"], req.get("retcode"), payload, 0, True, prefix, iv)
    return {"hex": message_helper.pack_message(msg, hmac_key=key_bytes(req)).hex()}


def op_ecb_decrypt(req):
    return {"hex": AESCipher(key_bytes(req)).decrypt(bytes.fromhex(req["hex"]), False, decode_text=False).hex()}


def op_hmac_sha256(req):
    return {"hex": hmac.new(key_bytes(req), bytes.fromhex(req["data_hex"]), sha256).digest().hex()}


def op_handshake_start(req):
    dev = make_device(req)
    handshakes[req["name"]] = dev
    start = dev._negotiate_session_key_generate_step_1()
    return {"hex": dev._encode_message(start).hex(), "nonce_hex": dev.local_nonce.hex()}


def op_handshake_finish(req):
    dev = handshakes[req["name"]]
    answer = message_helper.unpack_message(bytes.fromhex(req["hex"]), hmac_key=dev.local_key, no_retcode=False)
    if dev.version >= 3.5 or answer.crc_good:
        finish = dev._negotiate_session_key_generate_step_3(answer)
    else:
        finish = False
    if not finish:
        return {"ok": False}
    frame = dev._encode_message(finish)
    dev._negotiate_session_key_generate_finalize()
    return {"ok": True, "hex": frame.hex(), "session_key_hex": dev.local_key.hex(), "seq": dev.seqno}


def op_session_key(req):
    dev = make_device(req)
    dev.local_nonce = bytes.fromhex(req["client_nonce_hex"])
    dev.remote_nonce = bytes.fromhex(req["device_nonce_hex"])
    dev._negotiate_session_key_generate_finalize()
    return {"hex": dev.local_key.hex()}


def op_udp_decrypt(req):
    return {"json": tinytuya.decrypt_udp(bytes.fromhex(req["hex"]))}


def op_solicitation(req):
    # The packet tinytuya's scanner.send_discovery_request broadcasts to port 7000.
    body = json.dumps({"from": "app", "ip": req["ip"]}).encode()
    msg = TuyaMessage(0, tinytuya.REQ_DEVINFO, None, body, 0, True, tinytuya.PREFIX_6699_VALUE, True)
    return {"hex": tinytuya.pack_message(msg, hmac_key=tinytuya.udpkey).hex()}


OPS = {name[3:]: fn for name, fn in globals().items() if name.startswith("op_")}


def main():
    for line in sys.stdin:
        req = json.loads(line)
        try:
            answer = OPS[req["op"]](req)
        except Exception as error:  # reported to the Swift test, which fails with it
            answer = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
