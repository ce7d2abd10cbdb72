import Foundation
import Synchronization
import Testing

@testable import Gateway

/// The probe that tells a session waiting after a power cut that the wall clock is set.
@Suite("the wall clock's being set")
struct WallClockSyncTests {
    final class Clocks: Sendable {
        let wall = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let monotonic = Mutex(Duration.seconds(20))

        /// Both clocks move on by `seconds`, as time passing does.
        func pass(_ seconds: Int) {
            wall.withLock { $0 = $0.addingTimeInterval(TimeInterval(seconds)) }
            monotonic.withLock { $0 += .seconds(seconds) }
        }
    }

    static func probe(_ clocks: Clocks, flag: String) -> WallClockSync {
        WallClockSync(
            flag: flag, wall: { clocks.wall.withLock { $0 } }, monotonic: { clocks.monotonic.withLock { $0 } })
    }

    @Test("set once systemd-timesyncd's flag file exists")
    func timesyncFlag() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("youll-timesync-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let flag = directory.appendingPathComponent("synchronized").path
        let probe = Self.probe(Clocks(), flag: flag)
        #expect(!probe.isSet())
        #expect(FileManager.default.createFile(atPath: flag, contents: Data()))
        #expect(probe.isSet())
    }

    @Test("set once the wall clock steps (chrony, ntpd), not while it only runs on or is slewed")
    func step() {
        let clocks = Clocks()
        let probe = Self.probe(clocks, flag: "/nonexistent/youll-timesync-flag")
        clocks.pass(60)
        #expect(!probe.isSet())
        clocks.wall.withLock { $0 = $0.addingTimeInterval(0.5) }
        #expect(!probe.isSet(), "half a second of slewing is no step")
        clocks.wall.withLock { $0 = $0.addingTimeInterval(3_600) }
        #expect(probe.isSet())
        clocks.wall.withLock { $0 = $0.addingTimeInterval(-7_200) }
        #expect(probe.isSet(), "a step back is a step too")
    }
}
