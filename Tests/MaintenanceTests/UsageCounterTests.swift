import Foundation
import Testing
import TuyaCore

@testable import Maintenance

@Suite("Usage counting")
struct UsageCounterTests {
    let device = Fixtures.diffuser

    @Test("mist hours accumulate between reports that show it on")
    func countsOnTime() {
        let time = TestTime()
        var counter = UsageCounter()
        counter.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 2)
        #expect(counter.hours(of: .mist, device: device, at: time.now) == 2)
        counter.observe(state: Fixtures.misting(false), of: device, at: time.now)
        time.advance(hours: 5)
        #expect(counter.hours(of: .mist, device: device, at: time.now) == 2)
        #expect(counter.hours(of: .power, device: device, at: time.now) == 7)
    }

    @Test("mist does not count while the master switch is reported off")
    func mistNeedsPower() {
        let time = TestTime()
        var counter = UsageCounter()
        counter.observe(state: .diffuser(DiffuserState(power: false, mist: true)), of: device, at: time.now)
        time.advance(hours: 3)
        #expect(counter.hours(of: .mist, device: device, at: time.now) == 0)
    }

    @Test("time while the device is offline never counts, even though mist was on when it dropped")
    func offlineNeverCounts() {
        let time = TestTime()
        var counter = UsageCounter()
        counter.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 1)
        counter.deviceOffline(device, at: time.now)
        time.advance(hours: 10)
        #expect(counter.hours(of: .mist, device: device, at: time.now) == 1)
        // Back online: nothing counts until the device says what it is doing.
        counter.deviceOnline(device, at: time.now)
        time.advance(hours: 1)
        #expect(counter.hours(of: .mist, device: device, at: time.now) == 1)
        counter.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 2)
        #expect(counter.hours(of: .mist, device: device, at: time.now) == 3)
    }

    @Test("a partial report without the mist field keeps mist as it was")
    func partialReport() {
        let time = TestTime()
        var counter = UsageCounter()
        counter.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 1)
        counter.observe(state: .diffuser(DiffuserState(ledPower: true)), of: device, at: time.now)
        time.advance(hours: 1)
        #expect(counter.hours(of: .mist, device: device, at: time.now) == 2)
    }

    @Test("totals survive a restart through a JSON snapshot, and the downtime is not counted")
    func survivesRestart() throws {
        let time = TestTime()
        var counter = UsageCounter()
        counter.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 1)
        counter.deviceOffline(device, at: time.now)
        time.advance(hours: 4)
        counter.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 1.5)
        let stored = try JSONEncoder().encode(counter.snapshot(at: time.now))

        // The gateway is down for six hours; the diffuser may or may not have misted.
        time.advance(hours: 6)
        var restored = UsageCounter(restoring: try JSONDecoder().decode(UsageSnapshot.self, from: stored))
        #expect(restored.hours(of: .mist, device: device, at: time.now) == 2.5)
        restored.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 0.5)
        #expect(restored.hours(of: .mist, device: device, at: time.now) == 3)
    }

    @Test("a report dated before the last one adds nothing instead of going negative")
    func timeGoingBackwards() {
        let time = TestTime()
        var counter = UsageCounter()
        counter.observe(state: Fixtures.misting(true), of: device, at: time.now)
        time.advance(hours: 2)
        counter.observe(state: Fixtures.misting(true), of: device, at: time.now)
        counter.observe(state: Fixtures.misting(true), of: device, at: time.now.addingTimeInterval(-3600))
        #expect(counter.hours(of: .mist, device: device, at: time.now) == 2)
    }

    @Test("a stored snapshot with an unknown capability or a bad number is read without it")
    func hostileSnapshot() throws {
        let json = """
            {"takenAt": 0, "entries": [
              {"device": "desk-diffuser", "capability": "mist", "seconds": 7200},
              {"device": "desk-diffuser", "capability": "warp", "seconds": 99},
              {"device": "desk-diffuser", "capability": "power", "seconds": -5}
            ]}
            """
        let snapshot = try JSONDecoder().decode(UsageSnapshot.self, from: Data(json.utf8))
        let counter = UsageCounter(restoring: snapshot)
        let now = Date(timeIntervalSince1970: 10)
        #expect(counter.hours(of: .mist, device: device, at: now) == 2)
        #expect(counter.hours(of: .power, device: device, at: now) == 0)
        let badDevice = #"{"takenAt": 0, "entries": [{"device": "a b", "capability": "mist", "seconds": 1}]}"#
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(UsageSnapshot.self, from: Data(badDevice.utf8))
        }
    }
}
