"""The device side of the Tuya BLE protocol, for the Bumble rig (bumble_tuya_peripheral.py).

Written from ../shared/protocol/TUYA.md §1 (not from youll-devices' Swift code, so that the
gateway meets a second implementation): transport packets (§1.3), the encryption layer (§1.4),
the command frame (§1.5), the commands (§1.6), device info (§1.7), DP encoding (§1.8) and the
sequence a device follows (§1.9), behaving as the SDK's tuya_ble_commonData_rx_proc does:
frames that do not decrypt or fail their CRC are dropped without an answer.
"""

import hashlib
import os
import struct

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

DEVICE_INFO, PAIR, DP_WRITE_V3, QUERY, DP_WRITE_V4 = 0x0000, 0x0001, 0x0002, 0x0003, 0x0027
REPORT_V3, REPORT_V4, TIME_STRING, TIME_DATE = 0x8001, 0x8006, 0x8011, 0x8012
LOGIN_FLAG, SESSION_FLAG = 4, 5
DP_TYPES = {"raw": 0, "bool": 1, "value": 2, "string": 3, "enum": 4, "bitmap": 5}


def crc16_modbus(data):
    """CRC-16/MODBUS (§1.5): init 0xFFFF, reflected polynomial 0xA001, no final XOR."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc


def varint(value):
    """LEB128, low 7 bits first (§1.3)."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def read_varint(data, offset):
    value, shift = 0, 0
    for index in range(4):
        if offset + index >= len(data):
            raise ValueError("truncated varint")
        byte = data[offset + index]
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, offset + index + 1
    raise ValueError("varint longer than 4 bytes")


def aes_cbc(key, iv, data, decrypt=False):
    cipher = Cipher(algorithms.AES(key), modes.CBC(iv))
    worker = cipher.decryptor() if decrypt else cipher.encryptor()
    return worker.update(data) + worker.finalize()


def encode_dps(dps, v4):
    """KLV list (§1.8): id, type, length (1 byte in v3, 2 in v4), value."""
    out = bytearray()
    for dp_id, (kind, value) in sorted(dps.items()):
        out += bytes([dp_id, DP_TYPES[kind]]) + (struct.pack(">H", len(value)) if v4 else bytes([len(value)])) + value
    return bytes(out)


def decode_dps(data, v4):
    dps, offset = {}, 0
    names = {code: name for name, code in DP_TYPES.items()}
    while offset < len(data):
        if offset + (4 if v4 else 3) > len(data):
            raise ValueError("truncated DP")
        dp_id, kind = data[offset], data[offset + 1]
        if v4:
            length = struct.unpack_from(">H", data, offset + 2)[0]
            offset += 4
        else:
            length = data[offset + 2]
            offset += 3
        if offset + length > len(data) or kind not in names:
            raise ValueError("bad DP")
        dps[dp_id] = (names[kind], bytes(data[offset:offset + length]))
        offset += length
    return dps


def dp_value_text(kind, value):
    if kind == "bool":
        return "true" if value and value[0] else "false"
    if kind == "value":
        return str(struct.unpack(">i", value)[0]) if len(value) == 4 else value.hex()
    if kind in ("enum", "bitmap"):
        return str(int.from_bytes(value, "big"))
    if kind == "string":
        return value.decode("utf-8", "replace")
    return value.hex()


class TuyaBLEDevice:
    """One Tuya BLE device's protocol state. `receive(packet)` takes one GATT write and returns
    (packets to notify, whether to drop the link, events to print)."""

    def __init__(self, uuid, local_key, dev_id, protocol_version, dps, bound=False, mtu=20):
        self.uuid, self.dev_id, self.version = uuid, dev_id, protocol_version
        self.local_key = local_key.encode()
        self.login_key = hashlib.md5(self.local_key[:6]).digest()
        self.dps, self.bound, self.mtu = dict(dps), bound, mtu
        self.connected()

    def connected(self):
        self.session_key, self.paired = None, False
        self.last_sn, self.next_sn = 0, 1
        self.frame, self.expected, self.next_packet = bytearray(), 0, 0
        self.unacked = set()
        self.pending_time = None

    # transport (§1.3, §1.4)

    def receive(self, packet):
        events = []
        try:
            whole = self._reassemble(packet)
        except ValueError as error:
            self.frame, self.next_packet = bytearray(), 0
            return [], False, [f"rejected packet: {error}"]
        if whole is None:
            return [], False, events
        try:
            flag, frame = self._decrypt(whole)
        except ValueError as error:
            return [], False, [f"rejected frame: {error}"]
        sn, ack_sn, command, data = frame
        if sn <= self.last_sn:
            return [], True, [f"dropped link: sn {sn} not above {self.last_sn}"]
        self.last_sn = sn
        return self._handle(flag, sn, ack_sn, command, data)

    def _reassemble(self, packet):
        number, offset = read_varint(packet, 0)
        if number == 0:
            self.expected, offset = read_varint(packet, offset)
            if offset >= len(packet) or packet[offset] >> 4 < 2:
                raise ValueError("version below 2")
            offset += 1
            self.frame, self.next_packet = bytearray(), 0
        if number != self.next_packet:
            raise ValueError(f"packet {number}, expected {self.next_packet}")
        self.next_packet += 1
        self.frame += packet[offset:]
        if len(self.frame) < self.expected:
            return None
        whole, self.frame, self.next_packet = bytes(self.frame[:self.expected]), bytearray(), 0
        return whole

    def _decrypt(self, whole):
        flag = whole[0]
        key = self.login_key if flag == LOGIN_FLAG else self.session_key if flag == SESSION_FLAG else None
        if key is None or len(whole) < 33 or (len(whole) - 17) % 16:
            raise ValueError(f"flag {flag} or length {len(whole)} not usable")
        plain = aes_cbc(key, whole[1:17], whole[17:], decrypt=True)
        sn, ack_sn, command, length = struct.unpack_from(">IIHH", plain)
        if 12 + length + 2 > len(plain):
            raise ValueError("length beyond the frame")
        crc = struct.unpack_from(">H", plain, 12 + length)[0]
        if crc != crc16_modbus(plain[:12 + length]):
            raise ValueError("CRC mismatch (wrong key?)")
        return flag, (sn, ack_sn, command, plain[12:12 + length])

    def _send(self, command, data, flag=SESSION_FLAG, ack_sn=0):
        sn = self.next_sn
        self.next_sn += 1
        body = struct.pack(">IIHH", sn, ack_sn, command, len(data)) + data
        body += struct.pack(">H", crc16_modbus(body))
        body += bytes(-len(body) % 16)
        iv = os.urandom(16)
        key = self.login_key if flag == LOGIN_FLAG else self.session_key
        frame = bytes([flag]) + iv + aes_cbc(key, iv, body)
        packets, offset, number = [], 0, 0
        while offset < len(frame):
            head = varint(number) + ((varint(len(frame)) + bytes([self.version << 4])) if number == 0 else b"")
            room = self.mtu - len(head)
            packets.append(head + frame[offset:offset + room])
            offset += room
            number += 1
        return sn, packets

    # commands (§1.6, §1.9)

    def _handle(self, flag, sn, ack_sn, command, data):
        if command == DEVICE_INFO and flag == LOGIN_FLAG:
            return self._device_info(sn)
        if flag != SESSION_FLAG or self.session_key is None:
            return [], False, [f"rejected command 0x{command:04x} under flag {flag}"]
        if command == PAIR:
            return self._pair(sn, data)
        if not self.paired:
            return [], False, [f"rejected command 0x{command:04x} before pairing"]
        if command in (DP_WRITE_V3, DP_WRITE_V4):
            return self._write(sn, command, data)
        if command == QUERY:
            _, reply = self._send(QUERY, b"\x00", ack_sn=sn)
            out, events = self._report(self.dps)
            return reply + out, False, ["query"] + events
        if command in (REPORT_V3, REPORT_V4) and ack_sn in self.unacked:
            self.unacked.discard(ack_sn)
            return [], False, [f"ack {ack_sn}"]
        if command in (TIME_STRING, TIME_DATE) and ack_sn == self.pending_time:
            self.pending_time = None
            return [], False, [f"time {data[:13].decode('ascii', 'replace')}"]
        return [], False, [f"rejected command 0x{command:04x}"]

    def _device_info(self, sn):
        srand = os.urandom(6)
        self.session_key = hashlib.md5(self.local_key[:6] + srand).digest()
        virtual_id = self.dev_id.encode()[:22].ljust(22, b"\x00")
        body = bytes([1, 2, self.version, 1, 0, 1 if self.bound else 0]) + srand + bytes([1, 0])
        body += os.urandom(32) + bytes([1, 2, 0, 1, 0, 0, 0, 0, 0]) + virtual_id + bytes([1, 0, 0, 1, 0, 0, 0, 0])
        _, packets = self._send(DEVICE_INFO, body, flag=LOGIN_FLAG, ack_sn=sn)
        return packets, False, ["device-info"]

    def _pair(self, sn, data):
        if len(data) != 44 or data[:16].decode("ascii", "replace") != self.uuid:
            _, packets = self._send(PAIR, b"\x01", ack_sn=sn)
            return packets, True, ["pair refused"]
        result = b"\x02" if self.bound else b"\x00"
        self.bound, self.paired = True, True
        _, packets = self._send(PAIR, result, ack_sn=sn)
        self.pending_time, time_packets = self._send(TIME_STRING, b"")
        return packets + time_packets, False, ["paired"]

    def _write(self, sn, command, data):
        v4 = command == DP_WRITE_V4
        try:
            if v4:
                if len(data) < 5 or data[0] != 0:
                    raise ValueError("bad v4 write prefix")
                write_sn, dps = data[1:5], decode_dps(data[5:], v4=True)
            else:
                dps = decode_dps(data, v4=False)
        except ValueError as error:
            return [], False, [f"rejected write: {error}"]
        self.dps.update(dps)
        reply_data = (b"\x00" + write_sn + b"\x00") if v4 else b"\x00"
        _, reply = self._send(command, reply_data, ack_sn=sn)
        written = ",".join(f"{dp}={dp_value_text(*value)}" for dp, value in sorted(dps.items()))
        out, events = self._report(dps)
        return reply + out, False, [f"write {written}"] + events

    def report(self, dps):
        """A report the device sends on its own (a button press), as (packets, events)."""
        if not self.paired:
            return [], ["not paired: nothing reported"]
        self.dps.update(dps)
        return self._report(dps)

    def _report(self, dps):
        if self.version >= 4:
            body = b"\x00" + struct.pack(">I", self.next_sn) + b"\x00\x00" + encode_dps(dps, v4=True)
            sn, packets = self._send(REPORT_V4, body)
        else:
            sn, packets = self._send(REPORT_V3, encode_dps(dps, v4=False))
        self.unacked.add(sn)
        return packets, [f"report {sn}"]


def advertising_data(layout, product_id, uuid, protocol_version, bound):
    """The advert and scan response of §1.2 for `layout` ("a201" or "fd50")."""

    def ad(kind, value):
        return bytes([len(value) + 1, kind]) + value

    pid = product_id.encode()
    flags = ad(0x01, b"\x06")
    name = ad(0x09, b"TY")
    if layout == "a201":
        key = hashlib.md5(pid).digest()
        encrypted = aes_cbc(key, key, uuid.encode()[:16].ljust(16, b"\x00"))
        manufacturer = bytes([0x80 if bound else 0x00, protocol_version, 0x00, 0x00, 0x00, 0x00]) + encrypted
        advert = flags + ad(0x02, b"\x01\xa2") + ad(0x16, b"\x01\xa2\x00" + pid)
        return advert, name + ad(0xFF, b"\xd0\x07" + manufacturer)
    control = bytes([(0x41 | 0x08) if bound else 0x41, 0x00])
    service_data = control + bytes([0x00, len(pid)]) + pid
    key = hashlib.md5(service_data).digest()
    encrypted = aes_cbc(key, key, uuid.encode()[:16].ljust(16, b"\x00"))
    manufacturer = bytes([0x00, 0x00, 0x00, 0x80 if bound else 0x00]) + encrypted
    advert = flags + ad(0x03, b"\x50\xfd") + ad(0x16, b"\x50\xfd" + service_data)
    return advert, name + ad(0xFF, b"\xd0\x07" + manufacturer)

