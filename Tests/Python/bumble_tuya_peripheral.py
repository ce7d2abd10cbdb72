"""Bumble rig for youll-devices' HCI host tests: virtual Bluetooth controllers on one virtual
radio link, the central's reachable as H4 over TCP on loopback, and Tuya BLE peripherals (each
a full Bumble host with a GATT server on its own controller) that answer the Tuya BLE protocol
(bumble_tuya_device.py).

Usage: python bumble_tuya_peripheral.py [--port N] [--legacy-controller] [--acl-length N] [--acl-count N]
           --peripheral '{"address": "C4:00:00:00:00:01", "layout": "a201", ...}' ...
Peripheral keys: address, layout (a201 | fd50), uuid, local_key, dev_id, product_id,
protocol (3 | 4), dps ({"1": ["bool", true], "2": ["value", 30], "3": ["enum", 1]}),
bound (bool), gatt ("tuya" | "none": only a battery service, as a device that is not Tuya),
public (bool: advertise from a public address, as most Tuya devices do; else a random static one).

Stdout, one event per line: "ready port=N", then "<address> connected", "<address> disconnected
reason=0x13", "<address> device-info", "<address> paired", "<address> write 1=true", ...
Stdin, one command per line: "disconnect ADDRESS" (the device ends the link), "out-of-range
ADDRESS" (the link is lost with a supervision timeout and the device is heard no more),
"in-range ADDRESS", "report ADDRESS ID TYPE VALUE" (the device reports a DP on its own),
"gatt-round-trips ADDRESS N" (a second central, a Bumble host on its own controller on the
same radio link, connects and times N GATT writes with response to the device's notify
descriptor, then disconnects; it prints "ADDRESS gatt-round-trips n=N p50_us=X p99_us=Y":
the peer figure for the benchmark), "quit". The rig exits when stdin closes, so it never outlives the test that started it.

Two gaps of Bumble 0.0.236's virtual controller are filled here, each as the Core
Specification says a controller behaves: an active scan reports the advertiser's real scan
response (Bumble repeats the advert), and LE Create Connection Cancel ends the attempt with an
LE Connection Complete, status Unknown Connection Identifier (Bumble leaves it pending).
"""

import argparse
import asyncio
import json
import socket
import struct
import sys
import time

from bumble import hci
from bumble.controller import Controller
from bumble.device import Device, Peer
from bumble.gatt import GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR, Characteristic, CharacteristicValue, Service
from bumble.link import LocalLink
from bumble.transport.tcp_server import open_tcp_server_transport_with_socket

from bumble_tuya_device import TuyaBLEDevice, advertising_data

LAYOUTS = {
    "a201": ("1910", "00002b11-0000-1000-8000-00805f9b34fb", "00002b10-0000-1000-8000-00805f9b34fb"),
    "fd50": ("FD50", "00000001-0000-1001-8001-00805f9b07d0", "00000002-0000-1001-8001-00805f9b07d0"),
}


def emit(line):
    print(line, flush=True)


class RigController(Controller):
    """Bumble's virtual controller with the two behaviours above corrected."""

    active_scan = True

    def on_hci_le_set_scan_parameters_command(self, command):
        self.active_scan = command.le_scan_type == 1
        return super().on_hci_le_set_scan_parameters_command(command)

    def on_hci_le_set_extended_scan_parameters_command(self, command):
        self.active_scan = bool(command.scan_types) and command.scan_types[0] == 1
        return super().on_hci_le_set_extended_scan_parameters_command(command)

    def on_hci_le_create_connection_cancel_command(self, command):
        pending = self.pending_le_connection
        self.pending_le_connection = None
        if pending is not None:
            event = hci.HCI_LE_Connection_Complete_Event(
                status=hci.HCI_ErrorCode.UNKNOWN_CONNECTION_IDENTIFIER_ERROR, connection_handle=0, role=0,
                peer_address_type=pending.peer_address.address_type, peer_address=pending.peer_address,
                connection_interval=0, peripheral_latency=0, supervision_timeout=0, central_clock_accuracy=0)
            # After the Command Complete this handler's return value becomes.
            asyncio.get_running_loop().call_soon(self.send_hci_packet, event)
        return hci.HCI_StatusReturnParameters(hci.HCI_ErrorCode.SUCCESS if pending else
                                              hci.HCI_ErrorCode.COMMAND_DISALLOWED_ERROR)

    def on_advertising_pdu(self, pdu):
        if self.le_scan_enable:
            self.report(pdu.advertiser_address, pdu.data, scan_response=False)
            response = self.scan_response_of(pdu.advertiser_address)
            if self.active_scan and response is not None:
                self.report(pdu.advertiser_address, response, scan_response=True)
        pending = self.pending_le_connection
        if pending is not None and pending.peer_address == pdu.advertiser_address:
            self.create_le_connection(pdu.advertiser_address)

    def scan_response_of(self, address):
        for controller in self.link.controllers:
            advertiser = controller.le_legacy_advertiser
            if advertiser.enabled and advertiser.address == address:
                return advertiser.scan_response_data
            for advertising_set in controller.advertising_sets.values():
                if advertising_set.enabled and advertising_set.address == address:
                    return bytes(advertising_set.scan_response_data)
        return None

    def report(self, address, data, scan_response):
        if self.le_features & hci.LeFeatureMask.LE_EXTENDED_ADVERTISING:
            # Legacy PDUs in an extended report: ADV_IND 0b0010011, its SCAN_RSP 0b0011011.
            report = hci.HCI_LE_Extended_Advertising_Report_Event.Report(
                event_type=0x1B if scan_response else 0x13, address_type=address.address_type, address=address,
                primary_phy=hci.Phy.LE_1M, secondary_phy=0, advertising_sid=0xFF, tx_power=0x7F, rssi=-55,
                periodic_advertising_interval=0, direct_address_type=0, direct_address=hci.Address.ANY, data=data)
            self.send_hci_packet(hci.HCI_LE_Extended_Advertising_Report_Event([report]))
        else:
            kind = hci.HCI_LE_Advertising_Report_Event.EventType
            report = hci.HCI_LE_Advertising_Report_Event.Report(
                event_type=kind.SCAN_RSP if scan_response else kind.ADV_IND, address_type=address.address_type,
                address=address, data=data, rssi=-55)
            self.send_hci_packet(hci.HCI_LE_Advertising_Report_Event([report]))


class Peripheral:
    """One Tuya BLE peripheral: a Bumble host and GATT server on its own virtual controller."""

    def __init__(self, link, spec):
        self.link, self.spec = link, spec
        self.address = spec["address"].upper()
        self.public = bool(spec.get("public", False))
        public_address = hci.Address(self.address, hci.Address.PUBLIC_DEVICE_ADDRESS) if self.public else None
        self.controller = RigController(f"P-{self.address}", link=link, public_address=public_address)
        self.device = Device.with_hci(self.address, hci.Address(self.address), self.controller, self.controller)
        self.device.advertising_interval_min = self.device.advertising_interval_max = 50
        dps = {int(dp): (kind, encode_value(kind, value)) for dp, (kind, value) in spec.get("dps", {}).items()}
        self.tuya = TuyaBLEDevice(
            spec["uuid"], spec["local_key"], spec["dev_id"], int(spec.get("protocol", 3)), dps,
            bound=bool(spec.get("bound", False)))
        self.connection, self.in_range = None, True
        self.notify = None
        self.device.on("connection", self.on_connection)

    async def start(self):
        if self.spec.get("gatt", "tuya") == "tuya":
            service_uuid, write_uuid, notify_uuid = LAYOUTS[self.spec.get("layout", "a201")]
            write = Characteristic(
                write_uuid, Characteristic.Properties.WRITE_WITHOUT_RESPONSE | Characteristic.Properties.WRITE,
                Characteristic.WRITEABLE, CharacteristicValue(write=self.on_write))
            self.notify = Characteristic(notify_uuid, Characteristic.Properties.NOTIFY, Characteristic.READABLE, b"")
            self.device.add_service(Service(service_uuid, [write, self.notify]))
        else:
            level = Characteristic("2A19", Characteristic.Properties.READ, Characteristic.READABLE, b"\x64")
            self.device.add_service(Service("180F", [level]))
        await self.device.power_on()
        await self.advertise()

    def route_from_public(self):
        """LocalLink 0.0.236 sends a device's ACL data from its controller's random address;
        a device advertising from its public one needs them to be the same."""
        if self.public:
            self.controller.random_address = self.controller.public_address

    async def advertise(self):
        advert, response = advertising_data(
            self.spec.get("layout", "a201"), self.spec.get("product_id", "abcdefgh"), self.spec["uuid"],
            self.tuya.version, self.tuya.bound)
        own = hci.OwnAddressType.PUBLIC if self.public else hci.OwnAddressType.RANDOM
        await self.device.start_advertising(
            advertising_data=advert, scan_response_data=response, own_address_type=own)
        self.route_from_public()

    def on_connection(self, connection):
        self.connection = connection
        self.tuya.connected()
        emit(f"{self.address} connected")
        connection.on("disconnection", lambda reason: self.on_disconnection(connection, reason))

    def on_disconnection(self, connection, reason):
        if self.connection is connection:
            self.connection = None
        emit(f"{self.address} disconnected reason=0x{int(reason):02x}")
        if self.in_range:
            asyncio.get_running_loop().create_task(self.advertise())

    def on_write(self, connection, value):
        packets, drop, events = self.tuya.receive(bytes(value))
        for event in events:
            emit(f"{self.address} {event}")
        asyncio.get_running_loop().create_task(self.send(connection, packets, drop))

    async def send(self, connection, packets, drop):
        for packet in packets:
            await self.device.notify_subscriber(connection, self.notify, packet)
        if drop and connection is self.connection:
            await connection.disconnect()

    async def disconnect(self):
        if self.connection is not None:
            await self.connection.disconnect()

    async def out_of_range(self, central):
        """The radio link breaks: both controllers see a supervision timeout (0x08), and the
        device is heard no more until `back_in_range`."""
        self.in_range = False
        for controller in (central, self.controller):
            for connection in list(controller.le_connections.values()):
                if connection.peer_address in (central.public_address, self.device.random_address):
                    controller.on_le_disconnected(connection, hci.HCI_ErrorCode.CONNECTION_TIMEOUT_ERROR)
        await self.device.stop_advertising()

    async def back_in_range(self):
        self.in_range = True
        await self.advertise()

    async def report(self, dp, kind, value):
        packets, events = self.tuya.report({dp: (kind, encode_value(kind, value))})
        for event in events:
            emit(f"{self.address} {event}")
        if self.connection is not None:
            await self.send(self.connection, packets, False)


async def gatt_round_trips(link, peripheral, count):
    """Bumble's own GATT write round trip to `peripheral` on the same virtual radio link: a
    second central host connects, finds the Tuya notify characteristic's client configuration
    descriptor and writes it with response `count` times (after a warm-up); returns the
    sorted round trips in microseconds."""
    address = hci.Address("00:1B:DC:0F:00:02", hci.Address.PUBLIC_DEVICE_ADDRESS)
    controller = RigController("bench-central", link=link, public_address=address)
    controller.random_address = controller.public_address
    central = Device.with_hci("bench-central", address, controller, controller)
    await central.power_on()
    # As for the rig's own central: LocalLink sends ACL data from the random address, which
    # the host has just set; the connection is made from the public one.
    controller.random_address = controller.public_address
    own = hci.OwnAddressType.PUBLIC
    kind = hci.Address.PUBLIC_DEVICE_ADDRESS if peripheral.public else hci.Address.RANDOM_DEVICE_ADDRESS
    connection = await central.connect(hci.Address(peripheral.address, kind), own_address_type=own, timeout=30)
    try:
        peer = Peer(connection)
        await peer.discover_services()
        await peer.discover_characteristics()
        notify_uuid = LAYOUTS[peripheral.spec.get("layout", "a201")][2]
        characteristic = peer.get_characteristics_by_uuid(notify_uuid)[0]
        await characteristic.discover_descriptors()
        descriptor = characteristic.get_descriptor(GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR)
        times = []
        for index in range(count + 20):
            start = time.perf_counter_ns()
            await descriptor.write_value(b"\x00\x00", with_response=True)
            if index >= 20:
                times.append((time.perf_counter_ns() - start) / 1000)
        return sorted(times)
    finally:
        await connection.disconnect()
        await central.power_off()


def encode_value(kind, value):
    if kind == "bool":
        return b"\x01" if value in (True, 1, "true") else b"\x00"
    if kind == "value":
        return struct.pack(">i", int(value))
    if kind in ("enum", "bitmap"):
        return bytes([int(value)])
    if kind == "string":
        return str(value).encode()
    return bytes.fromhex(value)


async def commands(peripherals, central):
    reader = asyncio.StreamReader()
    await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while raw := await reader.readline():
        line = raw.decode().strip()
        words = line.split()
        if not words:
            continue
        peripheral = peripherals.get(words[1].upper()) if len(words) > 1 else None
        if words[0] == "quit":
            return
        if peripheral is None:
            emit(f"error unknown command or address: {line}")
        elif words[0] == "disconnect":
            await peripheral.disconnect()
        elif words[0] == "out-of-range":
            await peripheral.out_of_range(central)
            emit(f"{peripheral.address} out-of-range")
        elif words[0] == "in-range":
            await peripheral.back_in_range()
            emit(f"{peripheral.address} in-range")
        elif words[0] == "report" and len(words) == 5:
            await peripheral.report(int(words[2]), words[3], words[4])
        elif words[0] == "gatt-round-trips" and len(words) == 3:
            times = await gatt_round_trips(central.link, peripheral, max(1, int(words[2])))
            emit(f"{peripheral.address} gatt-round-trips n={len(times)} "
                 f"p50_us={times[len(times) // 2]:.1f} p99_us={times[len(times) * 99 // 100]:.1f}")
        else:
            emit(f"error unknown command: {line}")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peripheral", action="append", default=[], type=json.loads)
    parser.add_argument("--legacy-controller", action="store_true")
    parser.add_argument("--acl-length", type=int, default=27)
    parser.add_argument("--acl-count", type=int, default=8)
    parser.add_argument("--port", type=int, default=0, help="TCP port for the H4 link (default: any free one)")
    arguments = parser.parse_args()

    link = LocalLink()
    # IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets whose proto says TCP, and
    # with Nagle on, the controller's small events wait for the host's delayed ACK (40 ms).
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind(("127.0.0.1", arguments.port))
    transport = await open_tcp_server_transport_with_socket(listener)
    central = RigController("central", host_source=transport.source, host_sink=transport.sink, link=link,
                            public_address=hci.Address("00:1B:DC:0F:00:01", hci.Address.PUBLIC_DEVICE_ADDRESS))
    # LocalLink 0.0.236 sends a central's ACL data from its random address: make it the public one.
    central.random_address = central.public_address
    central.le_acl_data_packet_length = arguments.acl_length
    central.total_num_le_acl_data_packets = arguments.acl_count
    if arguments.legacy_controller:
        central.le_features &= ~hci.LeFeatureMask.LE_EXTENDED_ADVERTISING

    peripherals = {}
    for spec in arguments.peripheral:
        peripheral = Peripheral(link, spec)
        await peripheral.start()
        peripherals[peripheral.address] = peripheral
    emit(f"ready port={listener.getsockname()[1]}")
    await commands(peripherals, central)
    await transport.close()


if __name__ == "__main__":
    asyncio.run(main())
