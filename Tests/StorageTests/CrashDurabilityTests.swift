import Foundation
import LocalBroker
import Testing
import TuyaCore

@testable import Storage

/// Real parts: the built `youll-storage-crash-writer` binary writing a real SQLite file,
/// killed with SIGKILL.
@Suite("crash durability")
struct CrashDurabilityTests {
    @Test("a writer killed with SIGKILL mid-loop leaves a database with every committed write")
    func killNine() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // Read committed iteration numbers until enough have gone by, then kill without warning.
        let (lastCommitted, status) = try await ChildProcess.streamingLines(
            try Self.writerBinary().path, [scratch.state.path]
        ) { lines, signal in
            var lastCommitted: Int32 = 0
            while lastCommitted < 300, let line = try await lines.next() {
                if let number = Int32(line) { lastCommitted = number }
            }
            try signal(SIGKILL)
            return lastCommitted
        }
        #expect(status == nil, "the writer was ended by SIGKILL, not by exiting")
        #expect(lastCommitted >= 300)
        #expect(FileManager.default.fileExists(atPath: scratch.databasePath + "-wal"))

        let database = try GatewayDatabase.open(directory: scratch.state, eventLimit: 1_000_000)
        let id = DeviceID("crash-light")!
        guard case .value(let confirmed)? = try await database.confirmed(for: id)[DataPointID(3)!] else {
            Issue.record("no confirmed value survived")
            return
        }
        #expect(confirmed >= lastCommitted)
        let events = try await database.recentEvents(limit: 1_000_000)
        let ticks = events.compactMap { event -> Int64? in
            if case .integer(let value) = event.detail { return value }
            return nil
        }
        #expect(ticks.first.map { $0 >= Int64(lastCommitted) } == true)
        #expect(ticks == Array((1...Int64(ticks.count)).reversed()), "events are whole and gap-free")
        #expect(Int64(confirmed) - (ticks.first ?? 0) <= 1, "the two writes of an iteration are at most one apart")
    }

    static func writerBinary() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("youll-storage-crash-writer")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw CocoaError(
            .fileNoSuchFile, userInfo: [NSFilePathErrorKey: "youll-storage-crash-writer; run swift build first"])
    }
}
