import BLELink
import Foundation
import Testing
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

@Suite("ble.transport values")
struct BLETransportSettingTests {
    @Test(
        "each documented form parses",
        arguments: [
            ("bluez", BLETransportSetting.bluez),
            ("hci-user:hci0", .hciUser(adapter: "hci0")),
            ("h4:/dev/ttyAMA0", .h4Serial(path: "/dev/ttyAMA0", baudRate: 115_200)),
            ("h4:/dev/ttyUSB1,921600", .h4Serial(path: "/dev/ttyUSB1", baudRate: 921_600)),
            ("h4-tcp:127.0.0.1:9000", .h4TCP(host: "127.0.0.1", port: 9000)),
            ("h4-tcp:[::1]:9000", .h4TCP(host: "::1", port: 9000)),
            (" h4-tcp:emulator.lan:1234 ", .h4TCP(host: "emulator.lan", port: 1234)),
            ("h4-unix:/run/bt.sock", .h4Unix(path: "/run/bt.sock")),
        ])
    func parses(text: String, expected: BLETransportSetting) throws {
        let setting = try BLETransportSetting(parsing: text)
        #expect(setting == expected)
        #expect(try BLETransportSetting(parsing: setting.description) == setting, "description parses back")
        #expect(setting.usesOwnHost == (expected != .bluez))
    }

    @Test(
        "a wrong value says what is wrong with it",
        arguments: [
            ("usb", "unknown BLE transport 'usb'; expected one of: bluez | hci-user:hci0"),
            ("hci-user:bt0", "hci-user: 'bt0' is not an adapter name like hci0"),
            ("h4:ttyAMA0", "h4: expected an absolute device path"),
            ("h4:/dev/ttyAMA0,115201", "h4: baud rate '115201' is not one of 9600"),
            ("h4:/dev/ttyAMA0,9600,8N1", "h4: expected an absolute device path and an optional baud rate"),
            ("h4-tcp:localhost", "h4-tcp: expected HOST:PORT"),
            ("h4-tcp::9000", "h4-tcp: the host is empty"),
            ("h4-tcp:localhost:70000", "h4-tcp: port '70000' is not a number from 1 to 65535"),
            ("h4-tcp:::1:9000", "h4-tcp: expected HOST:PORT (write an IPv6 address as [::1]:PORT)"),
            ("h4-unix:bt.sock", "h4-unix: the socket path must be absolute"),
        ])
    func refuses(text: String, message: String) {
        #expect {
            try BLETransportSetting(parsing: text)
        } throws: { error in
            (error as? BLETransportSettingError)?.description.hasPrefix(message) == true
        }
    }
}

@Suite("HCI transports")
struct HCITransportTests {
    @Test("the user channel on this kernel fails in one line: no Bluetooth in the kernel, with the way out")
    func userChannelHere() async {
        await #expect {
            _ = try await HCITransportOpener.open(.hciUser(adapter: "hci0"))
        } throws: { error in
            guard case .transport(let line) = error as? HCIHostError else { return false }
            // A machine with Bluetooth gets another of the classified lines; this one has none.
            return line.hasPrefix("hci-user:hci0: ") && !line.contains("\n")
                && (line.contains("no Bluetooth support") || line.contains("busy") || line.contains("permission")
                    || line.contains("no such adapter"))
        }
    }

    @Test(
        "each user-channel failure names its fix in one line",
        arguments: [
            (EAFNOSUPPORT, "the kernel has no Bluetooth support"), (ENODEV, "no such adapter hci1"),
            (EBUSY, "hci1 is busy (up, or being set up by bluetoothd): stop bluetoothd"),
            (EUSERS, "another program already holds hci1's user channel"),
            (EPERM, "permission denied (this process lacks CAP_NET_ADMIN): the user channel needs CAP_NET_ADMIN"),
        ])
    func userChannelFailures(code: Int32, text: String) {
        let line = HCIUserChannel.failure(code, adapter: "hci1", call: "bind", missing: [.netAdmin])
        #expect(line.hasPrefix("hci-user:hci1: ") && line.contains(text) && !line.contains("\n"))
    }

    @Test("nothing listening on the TCP port is refused clearly")
    func tcpRefused() async throws {
        let port = try #require(Self.unusedLoopbackPort())
        await #expect(
            throws: HCIHostError.transport(
                "h4-tcp:127.0.0.1:\(port): connection refused: is the controller (or its emulator) listening there?")
        ) {
            _ = try await HCITransportOpener.open(.h4TCP(host: "127.0.0.1", port: port))
        }
    }

    @Test("a missing UNIX socket, a missing serial device and a file that is no serial port are named")
    func missingDevices() async {
        let missing = "/nonexistent/youll-\(UUID().uuidString.prefix(6))"
        await #expect(
            throws: HCIHostError.transport("h4-unix:\(missing): no such socket: is the controller emulator running?")
        ) {
            _ = try await HCITransportOpener.open(.h4Unix(path: missing))
        }
        await #expect {
            _ = try await HCITransportOpener.open(.h4Serial(path: missing, baudRate: 115_200))
        } throws: { error in
            (error as? HCIHostError)?.description.contains("no such device \(missing)") == true
        }
        await #expect {
            _ = try await HCITransportOpener.open(.h4Serial(path: "/dev/null", baudRate: 115_200))
        } throws: { error in
            (error as? HCIHostError)?.description.contains("/dev/null is not a serial port") == true
        }
    }

    @Test("the descriptor stream carries bytes both ways in order and reports the peer's end")
    func descriptorStream() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let near = try DescriptorByteStream(adopting: fds[0], name: "test")
        let far = try DescriptorByteStream(adopting: fds[1], name: "peer")
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0) }
        async let writing: Void = near.write(big)
        var received: [UInt8] = []
        while received.count < big.count, let chunk = try await far.read() { received += chunk }
        try await writing
        #expect(received == big, "a write larger than the socket buffer arrives whole")
        await near.close()
        #expect(try await far.read() == nil)
        await #expect(throws: ByteChannelError.self) { try await near.write([1]) }
    }

    @Test("a controller that never answers Reset fails the host's start after the command timeout")
    func silentController() async throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let stream = try DescriptorByteStream(adopting: fds[0], name: "silent")
        let controller = try DescriptorByteStream(adopting: fds[1], name: "controller")
        let clock = ManualClock()
        let opening = Task { try await HCIHost.open(stream, clock: clock) }
        #expect(try await controller.read() == hexBytes("01 03 0C 00"), "Reset")
        await clock.waitForSleepers()
        clock.advance(by: .seconds(10))
        await #expect(throws: HCIHostError.commandTimeout(.reset, after: .seconds(10))) { _ = try await opening.value }
        #expect(try await controller.read() == nil, "the stream is closed")
    }

    /// A loopback port the kernel just handed out and nothing listens on.
    static func unusedLoopbackPort() -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
