import Foundation
import Testing
import TuyaCore

@testable import Storage

/// Real parts: SQLite database files in a temporary directory.
@Suite("pairing candidates and the event log")
struct CandidateAndEventTests {
    @Test("a candidate counts frames and keeps first and last seen; newest first")
    func candidates() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let first = Date(timeIntervalSince1970: 1_000)
        try await database.recordCandidate(Fixture.lampID, at: first)
        try await database.recordCandidate(Fixture.diffuserID, at: first.addingTimeInterval(5))
        try await database.recordCandidate(Fixture.lampID, frames: 2, at: first.addingTimeInterval(10))
        #expect(
            try await database.candidates() == [
                PairingCandidate(
                    id: Fixture.lampID, firstSeen: first, lastSeen: first.addingTimeInterval(10), frames: 3),
                PairingCandidate(
                    id: Fixture.diffuserID, firstSeen: first.addingTimeInterval(5),
                    lastSeen: first.addingTimeInterval(5), frames: 1),
            ])
        try await database.removeCandidate(Fixture.lampID)
        #expect(try await database.candidates().map(\.id) == [Fixture.diffuserID])
    }

    @Test("only the most recently seen candidates are kept")
    func candidatesBounded() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state, candidateLimit: 3)
        for index in 0..<10 {
            try await database.recordCandidate(
                DeviceID("flood-\(index)")!, at: Date(timeIntervalSince1970: Double(index)))
        }
        #expect(try await database.candidates().map(\.id.rawValue) == ["flood-9", "flood-8", "flood-7"])
    }

    @Test("events come back newest first with their detail, device and time")
    func events() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let detail = JSONValue.object([
            "dps": .object(["20": .bool(true), "22": .integer(Int64.max)]), "ratio": .double(0.25),
            "list": .array([.null, .string("a\"b\n\u{1F600}")]),
        ])
        let at = Date(timeIntervalSince1970: 1_750_000_000.25)
        try await database.appendEvent("command", device: Fixture.lampID, detail: detail, at: at)
        try await database.appendEvent("bridge_started")
        let events = try await database.recentEvents(limit: 10)
        #expect(events.map(\.kind) == ["bridge_started", "command"])
        #expect(events[1].detail == detail)
        #expect(events[1].device == Fixture.lampID)
        #expect(events[1].at == at)
        #expect(events[0].device == nil && events[0].detail == .null)
        #expect(try await database.recentEvents(limit: 1).count == 1)
    }

    @Test("the log keeps the newest N events, trimming as it appends")
    func trimmed() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state, eventLimit: 5)
        for index in 1...12 { try await database.appendEvent("tick", detail: .integer(Int64(index))) }
        let events = try await database.recentEvents(limit: 100)
        #expect(events.map(\.detail) == (8...12).reversed().map { .integer(Int64($0)) })
    }

    @Test("a huge detail is stored and read back")
    func hugeDetail() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        let filler = String(repeating: "\u{0}'\"\\\u{1F600}", count: 200)
        let detail = JSONValue.array((0..<2_000).map { .object(["i": .integer(Int64($0)), "s": .string(filler)]) })
        try await database.appendEvent("huge", detail: detail)
        #expect(try await database.recentEvents(limit: 1).first?.detail == detail)
    }

    @Test("a stored local key that a caller puts into an event detail is redacted")
    func keysRedacted() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let database = try GatewayDatabase.open(directory: scratch.state)
        try await database.saveDevice(Fixture.lamp, localKey: Fixture.lampKey)
        try await database.appendEvent(
            "oops", device: Fixture.lampID, detail: .object(["key": .string("key=\(Fixture.lampKey.text)!")]))
        #expect(try await database.recentEvents(limit: 1).first?.detail == .object(["key": .string("key=<redacted>!")]))
    }
}
