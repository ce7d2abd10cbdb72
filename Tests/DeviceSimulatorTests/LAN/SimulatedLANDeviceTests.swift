import DeviceSimulator
import Testing
import TuyaCore
import TuyaWire

/// The LAN front of a simulated device without sockets: our client session speaks to it
/// byte for byte, time is passed explicitly.
@Suite("Simulated LAN device")
struct SimulatedLANDeviceTests {
    /// A client and a device in one place: bytes go straight from one to the other.
    struct Pair {
        var device: SimulatedLANDevice
        var client: LANClientSession
        var messages: [LANMessage] = []
        var failures: [LANSessionFailure] = []
        var now: Duration = .zero

        init(
            version: LANProtocolVersion, profile: String = "rgbcct-bulb-v2", clientKey: String = Fixture.localKey,
            behaviour: DeviceBehaviour = DeviceBehaviour(reportDelay: .zero),
            misbehaviour: Misbehaviour = Misbehaviour()
        ) throws {
            let model = try SimulatedDevice(
                devId: "bf0123456789abcdefghij", localKey: Fixture.localKey, profile: Fixture.profile(profile),
                behaviour: behaviour, misbehaviour: misbehaviour, seed: 3)
            device = SimulatedLANDevice(
                model: model, localKey: Fixture.localKey, version: version, ip: "127.0.0.9", seed: 4)
            client = LANClientSession(
                version: version, localKey: try AESKey(localKey: clientKey), random: SeededGenerator(seed: 5))
        }

        /// Connects and runs the handshake; true when the device took the connection.
        mutating func connect() -> Bool {
            let (accepted, _) = device.accept(at: now)
            guard accepted else { return false }
            deliverToDevice(client.start())
            return true
        }

        mutating func send(_ request: LANRequest) throws {
            deliverToDevice(try client.encode(request))
        }

        mutating func deliverToDevice(_ bytes: [UInt8]) {
            guard !bytes.isEmpty else { return }
            perform(device.receive(bytes, at: now))
        }

        mutating func advance(_ by: Duration) {
            now += by
            perform(device.advance(to: now))
        }

        mutating func perform(_ actions: [SimulatedLANDevice.Action]) {
            for action in actions {
                guard case .send(let bytes) = action else { continue }
                for event in client.receive(bytes) {
                    switch event {
                    case .send(let reply): deliverToDevice(reply)
                    case .message(let message): messages.append(message)
                    case .failed(let failure): failures.append(failure)
                    case .established: break
                    }
                }
            }
        }

        func dps(_ message: LANMessage) -> [String: JSONValue]? {
            (try? LANDataPoints.dps(in: message.payload)) ?? nil
        }
    }

    @Test("a CONTROL is acknowledged at once and confirmed by a STATUS push of the written values, on 3.3, 3.4 and 3.5")
    func controlConfirmed() throws {
        for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
            var pair = try Pair(version: version, behaviour: DeviceBehaviour(reportDelay: .milliseconds(20)))
            let connected = pair.connect()
            #expect(connected)
            #expect(pair.client.isEstablished, "\(version)")
            try pair.send(
                .control(
                    version: version, devId: pair.device.devId, dps: ["20": .bool(true), "22": .integer(500)],
                    timestamp: 1))
            #expect(pair.messages.map(\.command) == [version.controlCommand], "\(version): the ack comes first")
            #expect(pair.messages.first?.payload.isEmpty == true)
            pair.advance(.milliseconds(20))
            #expect(pair.messages.map(\.command) == [version.controlCommand, .status], "\(version)")
            #expect(pair.dps(pair.messages[1]) == ["20": .bool(true), "22": .integer(500)], "\(version)")
            #expect(pair.device.model.state[dp(22)] == .value(500))
            #expect(pair.failures.isEmpty)
        }
    }

    @Test("a DP query is answered in a frame of its own command with every DP")
    func queryAnswered() throws {
        for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
            var pair = try Pair(version: version)
            let connected = pair.connect()
            #expect(connected)
            try pair.send(.query(version: version, devId: pair.device.devId, timestamp: 1))
            let answer = try #require(pair.messages.first, "\(version)")
            #expect(answer.command == version.queryCommand)
            #expect(answer.retcode == 0)
            #expect(pair.dps(answer)?.count == pair.device.model.state.count, "\(version)")
            #expect(pair.device.statistics.queriesAnswered == 1)
        }
    }

    @Test("heartbeats get an empty heartbeat back; UPDATEDPS and a device22 query are answered")
    func otherRequests() throws {
        var pair = try Pair(version: .v3_3)
        let connected = pair.connect()
        #expect(connected)
        try pair.send(.heartbeat(devId: pair.device.devId))
        #expect(pair.messages.last?.command == .heartBeat)
        #expect(pair.messages.last?.payload.isEmpty == true)
        try pair.send(.updateDPs([20, 21]))
        #expect(pair.messages.last?.command == .status)
        #expect(pair.dps(try #require(pair.messages.last))?.keys.sorted() == ["20", "21"])
        try pair.send(.device22Query(devId: pair.device.devId, dpIDs: [20], timestamp: 1))
        #expect(pair.messages.last?.command == .controlNew)
        #expect(pair.dps(try #require(pair.messages.last))?.keys.sorted() == ["20"])
        #expect(pair.device.statistics.heartbeatsAnswered == 1)
    }

    @Test("a second connection is refused while the first is held, and accepted after it closes")
    func secondConnection() throws {
        var pair = try Pair(version: .v3_4)
        let connected = pair.connect()
        #expect(connected)
        let second = pair.device.accept(at: .zero).accepted
        #expect(second == false)
        #expect(pair.device.statistics.connectionsRefused == 1)
        pair.device.connectionClosed()
        let third = pair.device.accept(at: .zero).accepted
        #expect(third == true)
    }

    @Test("a device given the wrong-key misbehaviour is seen as a key mismatch on every version")
    func wrongKey() throws {
        for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
            var pair = try Pair(version: version, misbehaviour: Misbehaviour(wrongKey: "ZZZZZZZZZZZZZZZZ"))
            let connected = pair.connect()
            #expect(connected)
            if pair.client.isEstablished {
                try pair.send(.query(version: version, devId: pair.device.devId, timestamp: 1))
            }
            #expect(pair.failures.count == 1, "\(version): \(pair.failures)")
            #expect(pair.failures.first?.isKeyMismatch == true, "\(version)")
            #expect(pair.device.statistics.framesRejected >= 1)
        }
    }

    @Test("with a drop share of 1 commands are neither acknowledged nor applied")
    func dropShare() throws {
        var pair = try Pair(version: .v3_5, misbehaviour: Misbehaviour(dropShare: 1))
        let connected = pair.connect()
        #expect(connected)
        try pair.send(.control(version: .v3_5, devId: "x", dps: ["20": .bool(true)], timestamp: 1))
        pair.advance(.seconds(1))
        #expect(pair.messages.isEmpty)
        #expect(pair.device.model.statistics.framesDropped == 1)
        #expect(pair.device.model.state[dp(20)] == .bool(false))
    }

    @Test("past its flood limit the device goes deaf: requests go unanswered until the silence ends")
    func flooding() throws {
        let limit = FloodLimit(frames: 2, window: .seconds(1), silence: .seconds(5))
        var pair = try Pair(version: .v3_4, misbehaviour: Misbehaviour(floodLimit: limit))
        let connected = pair.connect()
        #expect(connected)
        for _ in 0..<3 { try pair.send(.query(version: .v3_4, devId: "x", timestamp: 1)) }
        #expect(pair.messages.count == 2)
        #expect(pair.device.model.statistics.framesFlooded == 1)
        pair.advance(.seconds(6))
        try pair.send(.query(version: .v3_4, devId: "x", timestamp: 1))
        #expect(pair.messages.count == 3)
    }

    @Test("going offline goes dark and drops the client; coming back listens again")
    func offline() throws {
        var pair = try Pair(version: .v3_3)
        let connected = pair.connect()
        #expect(connected)
        let dark = pair.device.goOffline(at: .seconds(1), for: .seconds(10))
        #expect(dark.contains(.goDark))
        #expect(!pair.device.isConnected)
        let silent = pair.device.announcement()
        #expect(silent == nil)
        let whileDark = pair.device.accept(at: .seconds(2)).accepted
        #expect(whileDark == false)
        let back = pair.device.advance(to: .seconds(11))
        #expect(back.contains(.comeBack))
        let afterwards = pair.device.accept(at: .seconds(11)).accepted
        #expect(afterwards)
    }

    @Test("a diffuser's timer ticks become STATUS pushes on the open connection")
    func spontaneousPush() throws {
        var pair = try Pair(version: .v3_4, profile: "aroma-diffuser-modern")
        let connected = pair.connect()
        #expect(connected)
        try pair.send(.control(version: .v3_4, devId: "x", dps: ["1": .bool(true), "4": .string("1")], timestamp: 1))
        let before = pair.messages.count
        pair.advance(.seconds(61))
        #expect(pair.messages.count > before)
        #expect(pair.messages.last?.command == .status)
        #expect(pair.dps(try #require(pair.messages.last))?["5"] == .integer(59))
    }

    @Test("announcements carry the device's id, address and version in its version's form; 3.5 answers a solicitation")
    func announcements() throws {
        for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
            var pair = try Pair(version: version)
            let announced = pair.device.announcement()
            let datagram = try #require(announced)
            guard case .announcement(let broadcast, let format) = try LANDiscovery.decode(datagram) else {
                Issue.record("\(version): not an announcement")
                continue
            }
            #expect(broadcast.gwId == pair.device.devId)
            #expect(broadcast.ip == "127.0.0.9")
            #expect(broadcast.protocolVersion == version)
            #expect(format == LANDiscovery.Format(version: version))
            let answer = pair.device.answer(LANSolicitation(ip: "127.0.0.1"))
            #expect((answer != nil) == (version == .v3_5), "\(version)")
        }
    }

    @Test("hostile bytes from a client never trap: the session fails or the frame is rejected")
    func hostileBytes() throws {
        var generator = SeededGenerator(seed: 404)
        for version in [LANProtocolVersion.v3_3, .v3_4, .v3_5] {
            for _ in 0..<300 {
                var pair = try Pair(version: version)
                _ = pair.device.accept(at: .zero)
                let prefix: [UInt8] = Bool.random(using: &generator) ? LAN55AAFrame.prefix : LAN6699Frame.prefix
                let bytes =
                    prefix
                    + (0..<Int.random(in: 0..<120, using: &generator)).map { _ in
                        UInt8.random(in: .min ... .max, using: &generator)
                    }
                let actions = pair.device.receive(bytes, at: .zero)
                for case .send(_) in actions {
                    // Only a 3.4/3.5 device answers an unreadable START, under its own key.
                    #expect(version.negotiatesSessionKey)
                }
            }
        }
    }
}
