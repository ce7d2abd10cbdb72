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
/// - `lanNN.hop.loop-session`: the same, with the client on the connection's event loop as
///   the device link runs (an actor on `LANLoop`, fed by `deliver`), awaited from the pool.
///
/// The full `lanNN.dpwrite` minus `lanNN.hop.loop-session` is the controller's part (its
/// actor, the link's shared core and the waiter).
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

    /// `session`, with the client on its connection's event loop as the device link runs:
    /// an actor on that `LANLoop`, the bytes handed to it by `deliver` (no stream, no task),
    /// and the caller's task awaiting each round trip from the pool, as the controller does.
    static func loopSession(_ identity: LANDeviceIdentity, samples: Int) async throws -> [Double] {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await loopSession(identity, version: identity.version, samples: samples)
            } catch is BenchError where attempt < 100 {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    private static func loopSession(
        _ identity: LANDeviceIdentity, version: LANProtocolVersion, samples: Int
    ) async throws -> [Double] {
        let loop = LANLoop.next()
        let connection = try await LANConnection.connect(host: identity.ip, port: 6668, timeout: .seconds(5), on: loop)
        defer { connection.close() }
        let client = LoopClient(
            loop: loop, connection: connection,
            session: LANClientSession(version: version, localKey: try AESKey(localKey: identity.localKey)))
        connection.deliver(
            on: loop, received: { [weak client] bytes in client?.assumeIsolated { $0.received(bytes) } },
            ended: { [weak client] in client?.assumeIsolated { $0.ended() } })
        try await client.handshake()
        let clock = ContinuousClock()
        var times: [Double] = []
        times.reserveCapacity(samples)
        for index in 0..<(samples + 50) {
            let request = LANRequest.control(
                version: version, devId: identity.devId, dps: ["22": .integer(Int64(100 + index % 800))],
                timestamp: 1_732_200_000)
            let started = clock.now
            try await client.roundTrip(request, value: Int64(100 + index % 800))
            if index >= 50 { times.append(microseconds(started.duration(to: clock.now))) }
        }
        return times.sorted()
    }

    /// The client of `loopSession`, confined to its connection's loop.
    private actor LoopClient {
        nonisolated let loop: LANLoop
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.unownedExecutor }
        private let connection: any LANByteStream
        private var session: LANClientSession
        private var waiting: CheckedContinuation<Void, any Error>?
        private var expected: Int64?
        private var closed = false

        init(loop: LANLoop, connection: any LANByteStream, session: LANClientSession) {
            self.loop = loop
            self.connection = connection
            self.session = session
        }

        func handshake() async throws {
            try await withCheckedThrowingContinuation { continuation in
                waiting = continuation
                let start = session.start()
                if !start.isEmpty { connection.write(start) }
                if session.isEstablished { finish(nil) }
            }
        }

        func roundTrip(_ request: LANRequest, value: Int64) async throws {
            guard !closed else { throw BenchError("the device closed") }
            let frame = try session.encode(request)
            try await withCheckedThrowingContinuation { continuation in
                waiting = continuation
                expected = value
                connection.write(frame)
            }
        }

        func received(_ bytes: [UInt8]) {
            for event in session.receive(bytes) {
                switch event {
                case .send(let frame): connection.write(frame)
                case .established: finish(nil)
                case .message(let message):
                    guard let expected, let dps = try? LANDataPoints.dps(in: message.payload),
                        dps["22"] == .integer(expected)
                    else { continue }
                    self.expected = nil
                    finish(nil)
                case .failed(let failure): finish(BenchError("the session failed: \(failure)"))
                }
            }
        }

        func ended() {
            closed = true
            finish(BenchError("the device closed"))
        }

        private func finish(_ error: BenchError?) {
            guard let waiting else { return }
            self.waiting = nil
            if let error { waiting.resume(throwing: error) } else { waiting.resume() }
        }
    }

    static func microseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12
    }
}
