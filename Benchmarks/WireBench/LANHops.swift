import DeviceSimulator
import Foundation
import LANLink
import TuyaCore
import TuyaWire

#if canImport(Glibc)
    import Glibc
#endif

/// Where a LAN round trip's time goes, hop by hop, measured in the same run as the full path
/// (`LANLinkBenchmarks`):
///
/// - `lan.hop.stream-echo`: the TCP echo of the floor, but the gateway side is the link's
///   `LANConnection` (SwiftNIO event loop, the bytes' `AsyncStream`, a task awaiting them):
///   what the connection adds to the bare socket round trip.
/// - `lanNN.hop.session`: a CONTROL frame to the simulated bulb and its STATUS push back,
///   through `LANConnection` and `LANClientSession` in one task, no controller: adds the
///   codec both ways and the simulator.
///
/// The full `lanNN.dpwrite` minus `lanNN.hop.session` is the controller's part (its actor,
/// the link actor, the shared link core and the waiter).
enum LANHops {
    /// A TCP socket listening on 127.0.0.1 at a free port, and its address (port included).
    static func loopbackListener() throws -> (fd: Int32, address: sockaddr_in) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw BenchError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw BenchError("bind/listen: errno \(errno)")
        }
        return (listener, address)
    }

    /// Round trips of 64 bytes from a `LANConnection` to a blocking echo thread, in
    /// microseconds, sorted.
    static func streamEcho(samples: Int) async throws -> [Double] {
        let (listener, address) = try loopbackListener()
        defer { close(listener) }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let fd = listener
        let echo = Thread {
            let server = accept(fd, nil, nil)
            guard server >= 0 else { return }
            var one: Int32 = 1
            setsockopt(server, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(server, $0.baseAddress!, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                var done = 0
                while done < count {
                    let written = buffer.withUnsafeBytes { Glibc.write(server, $0.baseAddress! + done, count - done) }
                    guard written > 0 else { break }
                    done += written
                }
            }
            close(server)
        }
        echo.start()
        let connection = try await LANConnection.connect(host: "127.0.0.1", port: port, timeout: .seconds(5))
        defer { connection.close() }
        var iterator = connection.bytes.makeAsyncIterator()
        let message = [UInt8](repeating: 7, count: 64)
        let clock = ContinuousClock()
        var times: [Double] = []
        times.reserveCapacity(samples)
        for index in 0..<(samples + 100) {
            let started = clock.now
            connection.write(message)
            var received = 0
            while received < message.count {
                guard let bytes = await iterator.next() else { throw BenchError("the echo closed") }
                received += bytes.count
            }
            if index >= 100 { times.append(microseconds(started.duration(to: clock.now))) }
        }
        return times.sorted()
    }

    /// CONTROL → the bulb's STATUS push carrying the written brightness, through
    /// `LANConnection` and `LANClientSession` alone, in microseconds, sorted.
    static func session(_ identity: LANDeviceIdentity, samples: Int) async throws -> [Double] {
        let version = identity.version
        // The bulb takes one client: until it has seen the controller's connection close, it
        // hangs up on this one, so try again for a while.
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await session(identity, version: version, samples: samples)
            } catch is BenchError where attempt < 100 {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    private static func session(
        _ identity: LANDeviceIdentity, version: LANProtocolVersion, samples: Int
    ) async throws -> [Double] {
        let connection = try await LANConnection.connect(host: identity.ip, port: 6668, timeout: .seconds(5))
        defer { connection.close() }
        var session = LANClientSession(version: version, localKey: try AESKey(localKey: identity.localKey))
        var iterator = connection.bytes.makeAsyncIterator()
        let start = session.start()
        if !start.isEmpty { connection.write(start) }
        while !session.isEstablished {
            guard let bytes = await iterator.next() else { throw BenchError("the device closed the handshake") }
            for case .send(let frame) in session.receive(bytes) { connection.write(frame) }
        }
        let clock = ContinuousClock()
        var times: [Double] = []
        times.reserveCapacity(samples)
        for index in 0..<(samples + 50) {
            let value = Int64(100 + index % 800)
            let request = LANRequest.control(
                version: version, devId: identity.devId, dps: ["22": .integer(value)], timestamp: 1_732_200_000)
            let started = clock.now
            connection.write(try session.encode(request))
            var confirmed = false
            while !confirmed {
                guard let bytes = await iterator.next() else { throw BenchError("the device closed") }
                for event in session.receive(bytes) {
                    guard case .message(let message) = event else { continue }
                    if let dps = try LANDataPoints.dps(in: message.payload), dps["22"] == .integer(value) {
                        confirmed = true
                    }
                }
            }
            if index >= 50 { times.append(microseconds(started.duration(to: clock.now))) }
        }
        return times.sorted()
    }

    static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }
}
