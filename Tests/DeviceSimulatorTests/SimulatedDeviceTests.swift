// Pure core only: no broker, no sockets, no threads; time is advanced explicitly.
import DeviceSimulator
import Testing
import TuyaCore
import TuyaWire
import YoullTestSupport

@Suite("simulated device core")
struct SimulatedDeviceTests {
    private func light(delay: Duration = .milliseconds(100)) throws -> SimulatedDevice {
        try SimulatedDevice(
            devId: "bfsimulatedlight000001", localKey: Fixture.localKey, profile: Fixture.profile("rgbcct-bulb-v2"),
            behaviour: DeviceBehaviour(reportDelay: delay))
    }

    @Test("a command changes state and is reported, encrypted with the local key, after the report delay")
    func commandIsReportedAfterDelay() throws {
        var device = try light()
        let immediate = device.receive(
            try Fixture.command(["20": .bool(true), "22": .integer(500)]), at: .seconds(1))
        #expect(immediate.isEmpty)
        #expect(device.state[dp(20)] == .bool(true))
        #expect(device.state[dp(22)] == .value(500))
        #expect(device.nextDeadline == .seconds(1) + .milliseconds(100))
        #expect(device.advance(to: .seconds(1) + .milliseconds(99)).isEmpty)
        let reports = SimulatedDevice.reports(in: device.advance(to: .seconds(2)))
        let report = try #require(reports.first)
        #expect(reports.count == 1)
        #expect(report.dataPoints == [dp(20): .bool(true), dp(22): .value(500)])
        let decoded = try Fixture.report(report.payload)
        #expect(decoded.devId == "bfsimulatedlight000001")
        #expect(decoded.dps == ["20": .bool(true), "22": .integer(500)])
    }

    @Test("with no report delay the answer comes out of receive itself")
    func zeroDelayAnswersAtOnce() throws {
        var device = try light(delay: .zero)
        let reports = SimulatedDevice.reports(
            in: device.receive(try Fixture.command(["21": .string("colour")]), at: .zero))
        #expect(reports.map(\.dataPoints) == [[dp(21): .enumeration("colour")]])
    }

    @Test("a protocol-31 query is answered with every data point, or with the ones listed")
    func queryReportsAllDataPoints() throws {
        var device = try light(delay: .zero)
        let all = SimulatedDevice.reports(in: device.receive(try Fixture.query(), at: .zero))
        #expect(all.count == 1)
        #expect(Set(all.first?.dataPoints.keys.map(\.intValue) ?? []) == Set(20...26))
        #expect(try Fixture.report(#require(all.first).payload).dps.count == 7)
        let some = SimulatedDevice.reports(in: device.receive(try Fixture.query([22, 99]), at: .zero))
        #expect(some.map { Array($0.dataPoints.keys) } == [[dp(22)]])
    }

    @Test("out-of-range values, unknown DPs, bad labels, bad colours and read-only DPs are ignored like firmware does")
    func invalidWritesAreIgnored() throws {
        var device = try light(delay: .zero)
        let before = device.state
        let rejected: [[String: JSONValue]] = [
            ["22": .integer(5)],  // below 10
            ["22": .integer(1001)],
            ["99": .bool(true)],  // unknown DP
            ["21": .string("disco")],
            ["24": .string("zz")],
            ["20": .integer(1)],  // wrong type
        ]
        for dps in rejected {
            #expect(device.receive(try Fixture.command(dps), at: .zero).isEmpty, "\(dps)")
        }
        #expect(device.state == before)
        #expect(device.statistics.framesIgnored == rejected.count)
        let mixed = SimulatedDevice.reports(
            in: device.receive(try Fixture.command(["22": .integer(2000), "23": .integer(300)]), at: .zero))
        #expect(mixed.map(\.dataPoints) == [[dp(23): .value(300)]])

        var diffuser = try SimulatedDevice(
            devId: "bfdiffuser", localKey: Fixture.localKey, profile: Fixture.profile("aroma-diffuser-modern"),
            behaviour: DeviceBehaviour(reportDelay: .zero))
        #expect(diffuser.receive(try Fixture.command(["11": .integer(1)]), at: .zero).isEmpty)
        #expect(diffuser.state[dp(11)] == .bitmap(0))
    }

    @Test("garbage, truncated, wrong-key and other-protocol frames are ignored without trapping")
    func hostileFramesAreIgnored() throws {
        var device = try light(delay: .zero)
        var generator = SeededGenerator(seed: 7)
        var inputs: [[UInt8]] = [[], Array("2.2".utf8), try Fixture.query(key: "fedcba9876543210")]
        let valid = try Fixture.query()
        inputs.append(Array(valid.dropLast(3)))
        var flipped = valid
        flipped[20] ^= 0xFF
        inputs.append(flipped)
        inputs.append(try Fixture.frame(.other(protocol: 8, data: .object([:])), key: Fixture.localKey, sequence: 2))
        for _ in 0..<200 {
            inputs.append(
                (0..<Int.random(in: 0..<80, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator)
                })
        }
        for input in inputs {
            #expect(device.receive(input, at: .zero).isEmpty)
        }
        #expect(device.statistics.framesIgnored == inputs.count)
    }

    @Test("a diffuser countdown counts minutes left down and switches the diffuser off at zero")
    func countdownRunsDown() throws {
        var device = try SimulatedDevice(
            devId: "bfdiffuser", localKey: Fixture.localKey, profile: Fixture.profile("aroma-diffuser-modern"),
            behaviour: DeviceBehaviour(reportDelay: .zero, tankDuration: .seconds(100 * 3600)))
        let set = SimulatedDevice.reports(
            in: device.receive(try Fixture.command(["1": .bool(true), "2": .bool(true), "4": .string("1")]), at: .zero))
        #expect(set.first?.dataPoints[dp(5)] == .value(60))
        let tick = SimulatedDevice.reports(in: device.advance(to: .seconds(60)))
        #expect(tick.map(\.dataPoints) == [[dp(5): .value(59)]])
        #expect(SimulatedDevice.reports(in: device.advance(to: .seconds(90))).isEmpty)
        let ticks = SimulatedDevice.reports(in: device.advance(to: .seconds(3599)))
        #expect(ticks.count == 58)
        #expect(device.state[dp(5)] == .value(1))
        let end = SimulatedDevice.reports(in: device.advance(to: .seconds(3600)))
        #expect(
            end.map(\.dataPoints) == [
                [dp(1): .bool(false), dp(2): .bool(false), dp(4): .enumeration("cancel"), dp(5): .value(0)]
            ])
        #expect(device.nextDeadline == nil)
    }

    @Test("layout L timer labels 0...3 mean cancel, 1 h, 3 h and 6 h")
    func legacyTimerLabels() throws {
        var device = try SimulatedDevice(
            devId: "bflegacy", localKey: Fixture.localKey, profile: Fixture.profile("aroma-diffuser-legacy"),
            behaviour: DeviceBehaviour(reportDelay: .zero))
        _ = device.receive(try Fixture.command(["13": .string("2")]), at: .zero)
        #expect(device.state[dp(14)] == .value(180))
        _ = device.receive(try Fixture.command(["13": .string("0")]), at: .seconds(5))
        #expect(device.state[dp(14)] == .value(0))
    }

    @Test("misting drains the tank until the water-shortage bit is raised and the mist stops; refill clears it")
    func waterDrainsToFault() throws {
        var device = try SimulatedDevice(
            devId: "bfdiffuser", localKey: Fixture.localKey, profile: Fixture.profile("aroma-diffuser-modern"),
            behaviour: DeviceBehaviour(reportDelay: .zero, tankDuration: .seconds(600)))
        _ = device.receive(try Fixture.command(["1": .bool(true), "2": .bool(true)]), at: .zero)
        _ = device.receive(try Fixture.command(["2": .bool(false)]), at: .seconds(200))
        // Paused for 1000 s: no water used.
        _ = device.receive(try Fixture.command(["2": .bool(true)]), at: .seconds(1200))
        #expect(device.nextDeadline == .seconds(1600))
        #expect(device.advance(to: .seconds(1599)).isEmpty)
        let empty = SimulatedDevice.reports(in: device.advance(to: .seconds(1600)))
        #expect(empty.map(\.dataPoints) == [[dp(2): .bool(false), dp(11): .bitmap(1)]])
        #expect(device.hasWaterShortage)
        let retry = SimulatedDevice.reports(
            in: device.receive(try Fixture.command(["2": .bool(true)]), at: .seconds(1700)))
        #expect(retry.map(\.dataPoints) == [[dp(2): .bool(false)]])
        let refilled = SimulatedDevice.reports(in: device.refill(at: .seconds(1800)))
        #expect(refilled.map(\.dataPoints) == [[dp(11): .bitmap(0)]])
        #expect(!device.hasWaterShortage)
    }

    @Test("a drop share loses that share of commands, the same ones for the same seed")
    func dropShareIsSeeded() throws {
        func run(seed: UInt64) throws -> [Bool] {
            var device = try SimulatedDevice(
                devId: "bflight", localKey: Fixture.localKey, profile: Fixture.profile("rgbcct-bulb-v2"),
                behaviour: DeviceBehaviour(reportDelay: .zero), misbehaviour: Misbehaviour(dropShare: 0.3), seed: seed)
            return try (0..<400).map { step in
                !device.receive(try Fixture.query(), at: .seconds(Int64(step))).isEmpty
            }
        }
        let answered = try run(seed: 42)
        let dropped = answered.filter { !$0 }.count
        #expect((80...160).contains(dropped), "dropped \(dropped) of 400")
        #expect(try run(seed: 42) == answered)
        #expect(try run(seed: 43) != answered)
    }

    @Test("flooded beyond its rate the device stops answering, and answers again after the silence")
    func floodMakesDeviceDeaf() throws {
        var device = try light(delay: .zero)
        device.misbehaviour.floodLimit = FloodLimit(frames: 5, window: .seconds(1), silence: .seconds(10))
        let burst = try (0..<10).map { step in
            !device.receive(try Fixture.query(), at: .milliseconds(Int64(step) * 10)).isEmpty
        }
        #expect(burst == Array(repeating: true, count: 5) + Array(repeating: false, count: 5))
        #expect(device.statistics.framesFlooded == 5)
        #expect(device.receive(try Fixture.query(), at: .seconds(5)).isEmpty)
        #expect(!device.receive(try Fixture.query(), at: .seconds(11)).isEmpty)
        // Within the limit the device never goes deaf.
        let paced = try (0..<20).map { step in
            !device.receive(try Fixture.query(), at: .seconds(20) + .milliseconds(Int64(step) * 250)).isEmpty
        }
        #expect(paced.allSatisfy { $0 })
    }

    @Test("with a wrong key the report decrypts only with that key, which a gateway sees as a key mismatch")
    func wrongKeyEncryptsWithAnotherKey() throws {
        var device = try light(delay: .zero)
        device.misbehaviour.wrongKey = "WRONGwrongWRONG!"
        let report = try #require(SimulatedDevice.reports(in: device.receive(try Fixture.query(), at: .zero)).first)
        let withRightKey = Result { () throws(WireError) in
            try MQTTFrame.decode(report.payload, key: AESKey(localKey: Fixture.localKey))
        }
        guard case .failure(.keyMismatch) = withRightKey else {
            Issue.record("expected keyMismatch, got \(withRightKey)")
            return
        }
        #expect(try Fixture.report(report.payload, key: "WRONGwrongWRONG!").dps.count == 7)
    }

    @Test("offline the device disconnects and ignores frames; it comes back on time and reports every DP on connect")
    func offlineAndBack() throws {
        var device = try light(delay: .milliseconds(100))
        _ = device.receive(try Fixture.query(), at: .zero)
        #expect(device.goOffline(at: .milliseconds(50), for: .seconds(30)) == [.disconnect])
        #expect(device.advance(to: .seconds(1)).isEmpty, "the pending report is lost")
        #expect(device.receive(try Fixture.query(), at: .seconds(2)).isEmpty)
        #expect(!device.isOnline)
        #expect(device.advance(to: .seconds(31)) == [.connect])
        let announced = SimulatedDevice.reports(in: device.connected(at: .seconds(31)))
        #expect(announced.first?.dataPoints.count == 7)
    }

    @Test("the initial state comes from profile defaults, with sensible values where none is given")
    func initialState() throws {
        let device = try light()
        #expect(device.state[dp(20)] == .bool(false))
        #expect(device.state[dp(21)] == .enumeration("white"))
        #expect(device.state[dp(22)] == .value(1000))
        #expect(device.state[dp(24)] == .string("000003e803e8"))
        #expect(device.state[dp(25)] == .string("000c0d0000000000000000c80000"))
        #expect(device.state[dp(26)] == .value(0))
    }
}
