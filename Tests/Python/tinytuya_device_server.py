"""A Tuya LAN device made of tinytuya's own code, for youll-devices' gateway to drive
(TuyaControllerTests/LANTinytuyaDeviceTests): proves our client side against an
implementation no one here wrote.

  tinytuya_device_server.py --ip IP --port PORT --id DEV_ID --key LOCAL_KEY --version 3.x --dps JSON

Listens on IP:PORT (a loopback address of the test's own), prints `ready IP PORT`, then
serves one TCP connection at a time until stdin closes. Events go to stdout, one a line:
`connected`, `established` (the 3.4/3.5 session key is agreed), `request CMD`,
`applied {dps}`, `rejected CMD REASON`, `closed`.

Every frame is read by tinytuya's message_helper (parse_header, unpack_message) and
XenonDevice._decode_payload, and made by message_helper.pack_message with tinytuya's
AESCipher; the 3.4/3.5 session key is derived by tinytuya's own
_negotiate_session_key_generate_finalize (the code tinytuya runs as a client) from the two
nonces, and the handshake HMACs are hmac.new(key, nonce, sha256) exactly as tinytuya's
_negotiate_session_key_generate_step_3 computes them. The only choices made here are a
device's: which command answers which, the JSON bodies, and the frame layout a device
sends (retcode first; the version header per tinytuya's NO_PROTOCOL_HEADER_CMDS: clear
before the ciphertext up to 3.3, inside it from 3.4), since tinytuya has no device-side
encoder: its _encode_message writes client frames (no retcode), and its fake device
(tools/fake-v35-device.py in its repository) is not part of the installed package.
"""

import argparse
import hmac
import json
import os
import socket
import struct
import sys
import threading
from hashlib import sha256

import tinytuya
from tinytuya.core import command_types as CT
from tinytuya.core import header as H
from tinytuya.core.crypto_helper import AESCipher
from tinytuya.core.exceptions import DecodeError
from tinytuya.core.message_helper import TuyaMessage, pack_message, parse_header, unpack_message


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


class Connection:
    """One TCP connection: the handshake (3.4/3.5), then requests and answers."""

    def __init__(self, sock, args, dps):
        self.sock = sock
        self.args = args
        self.dps = dps
        self.version = float(args.version)
        self.real_key = args.key.encode("latin1")
        # tinytuya's client object for this version: its _decode_payload reads requests,
        # its _negotiate_session_key_generate_finalize derives the session key.
        self.tt = tinytuya.Device(args.id, args.ip, args.key, version=self.version)
        self.key = self.real_key  # the session key once agreed
        self.established = self.version < 3.4
        self.client_nonce = None
        self.device_nonce = None
        self.seqno = 1
        self.buffer = b""

    # -- frames --------------------------------------------------------------------------

    def frames(self):
        """Whole frames as tinytuya's parse_header sizes them; garbage before a prefix is dropped."""
        while True:
            at = min([i for i in (self.buffer.find(H.PREFIX_55AA_BIN), self.buffer.find(H.PREFIX_6699_BIN)) if i >= 0],
                     default=-1)
            if at < 0:
                self.buffer = self.buffer[-3:]
                return
            self.buffer = self.buffer[at:]
            try:
                header = parse_header(self.buffer)
            except DecodeError as error:
                if "Not enough data" in str(error):
                    return
                self.buffer = self.buffer[4:]
                continue
            if len(self.buffer) < header.total_length:
                return
            frame, self.buffer = self.buffer[:header.total_length], self.buffer[header.total_length:]
            yield header, frame

    def send(self, cmd, body, seqno=None, retcode=0):
        """A device frame: retcode, then the body (JSON bytes, or a handshake payload)
        encrypted for this version, packed by tinytuya's pack_message."""
        if seqno is None:
            seqno = self.seqno
            self.seqno += 1
        header = b""
        if body and cmd not in H.NO_PROTOCOL_HEADER_CMDS and self.version >= 3.2:
            header = self.tt.version_header
        if self.version >= 3.5:
            msg = TuyaMessage(seqno, cmd, retcode, header + body, 0, True, H.PREFIX_6699_VALUE, True)
            self.sock.sendall(pack_message(msg, hmac_key=self.key))
            return
        retcode_bytes = struct.pack(H.MESSAGE_RETCODE_FMT, retcode)
        if not body:
            payload = retcode_bytes
        elif self.version >= 3.4:
            payload = retcode_bytes + AESCipher(self.key).encrypt(header + body, False)
        elif self.version >= 3.2:
            payload = retcode_bytes + header + AESCipher(self.key).encrypt(body, False)
        else:
            payload = retcode_bytes + body  # 3.1 answers in clear
        msg = TuyaMessage(seqno, cmd, retcode, payload, 0, True, H.PREFIX_55AA_VALUE, None)
        self.sock.sendall(pack_message(msg, hmac_key=self.key if self.version >= 3.4 else None))

    def unpack(self, header, frame):
        hmac_key = self.key if self.version >= 3.4 else None
        return unpack_message(frame, hmac_key=hmac_key, header=header, no_retcode=True)

    # -- the session key (3.4/3.5) -----------------------------------------------------

    def handshake_payload(self, msg):
        """The clear payload of a handshake frame (3.4: AES-ECB inside the HMAC'd frame)."""
        if self.version == 3.4:
            return AESCipher(self.real_key).decrypt(msg.payload, False, decode_text=False)
        return msg.payload

    def start(self, msg):
        # A START that does not open under our key is answered anyway, sealed with our key,
        # so a gateway holding another key sees a reply it cannot verify (as our simulator
        # does; what real firmware sends here is unverified).
        if not msg.crc_good:
            say("rejected %d start-does-not-open" % msg.cmd)
        try:
            self.client_nonce = self.handshake_payload(msg)[:16]
        except Exception:  # a wrong key's ECB block
            self.client_nonce = msg.payload[:16]
        self.device_nonce = os.urandom(16)
        answer = self.device_nonce + hmac.new(self.real_key, self.client_nonce, sha256).digest()
        self.send(CT.SESS_KEY_NEG_RESP, answer, seqno=msg.seqno)

    def finish(self, msg):
        expected = hmac.new(self.real_key, self.device_nonce, sha256).digest()
        if not msg.crc_good or self.handshake_payload(msg)[:32] != expected:
            say("rejected %d finish-does-not-verify" % msg.cmd)
            return False
        self.tt.local_nonce = self.client_nonce
        self.tt.remote_nonce = self.device_nonce
        self.tt._negotiate_session_key_generate_finalize()
        self.key = self.tt.local_key
        self.established = True
        say("established")
        return True

    # -- requests ------------------------------------------------------------------------

    def body(self, dps):
        if self.version >= 3.4:
            return {"protocol": 4, "t": 1700000000, "data": {"dps": dps}}
        return {"devId": self.args.id, "dps": dps, "t": 1700000000}

    def request(self, msg):
        say("request %d" % msg.cmd)
        if msg.cmd == CT.HEART_BEAT:
            self.send(CT.HEART_BEAT, b"", seqno=msg.seqno)
            return
        decoded = self.tt._decode_payload(msg.payload) if msg.payload else {}
        if not msg.crc_good or decoded is None or "Error" in decoded:
            # What a device cannot read it answers in its own key (3.1-3.3), so a gateway
            # with another key sees a reply it cannot decrypt.
            say("rejected %d does-not-decrypt" % msg.cmd)
            if self.version < 3.4:
                self.send(msg.cmd, b"json obj data unvalid", seqno=msg.seqno, retcode=1)
            return
        if msg.cmd in (CT.DP_QUERY, CT.DP_QUERY_NEW):
            answer = self.body(self.dps)
            self.send(msg.cmd, json.dumps(answer, separators=(",", ":")).encode(), seqno=msg.seqno)
        elif msg.cmd in (CT.CONTROL, CT.CONTROL_NEW):
            written = decoded.get("dps", {})
            self.dps.update(written)
            say("applied " + json.dumps(written, sort_keys=True, separators=(",", ":")))
            self.send(msg.cmd, b"", seqno=msg.seqno)
            self.send(CT.STATUS, json.dumps(self.body(written), separators=(",", ":")).encode())

    def serve(self):
        say("connected")
        while True:
            data = self.sock.recv(4096)
            if not data:
                return
            self.buffer += data
            for header, frame in list(self.frames()):
                msg = self.unpack(header, frame)
                if msg.cmd == CT.SESS_KEY_NEG_START and self.version >= 3.4:
                    self.start(msg)
                elif msg.cmd == CT.SESS_KEY_NEG_FINISH and self.version >= 3.4:
                    if not self.finish(msg):
                        return
                elif self.established:
                    self.request(msg)
                else:
                    say("rejected %d before-the-handshake" % msg.cmd)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ip", required=True)
    parser.add_argument("--port", type=int, default=6668)
    parser.add_argument("--id", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--dps", default="{}")
    args = parser.parse_args()
    dps = json.loads(args.dps)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.ip, args.port))
    listener.listen(4)
    # The test ends the device by closing our stdin.
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    say("ready %s %d" % (args.ip, args.port))
    while True:
        sock, _ = listener.accept()
        try:
            Connection(sock, args, dps).serve()
        except (OSError, DecodeError) as error:
            say("closed-by-error %s" % type(error).__name__)
        finally:
            sock.close()
            say("closed")


if __name__ == "__main__":
    main()
