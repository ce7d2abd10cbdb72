import Foundation
import Testing
import TuyaCore

@testable import TuyaController

/// Pure: the table of LAN broadcasts heard, under a flood of forged device ids.
@Suite("LAN sightings")
struct LANSightingsTests {
    static func sighting(_ id: String, ip: String = "192.0.2.10") throws -> LANSighting {
        LANSighting(id: try #require(DeviceID(id)), ip: ip, version: "3.4", lastSeen: Date(timeIntervalSince1970: 0))
    }

    @Test(
        "once a flood of forged ids has filled the table, a real device is still recorded and a paired one follows its move"
    )
    func floodDoesNotLockTheTable() throws {
        var sightings = LANSightings()
        let paired = try Self.sighting("bf0paired0000000000001")
        #expect(sightings.record(paired) == .new(paired))
        let isKept: (DeviceID) -> Bool = { $0 == paired.id }
        for index in 0..<(LANSightings.capacity * 3) {
            _ = sightings.record(try Self.sighting("bf0forged\(String(format: "%013d", index))"), isKept: isKept)
        }
        #expect(sightings.all.count == LANSightings.capacity, "bounded")
        #expect(sightings.sighting(of: paired.id) == paired, "a paired device is never pushed out")
        let real = try Self.sighting("bf0newreal000000000001", ip: "192.0.2.20")
        #expect(sightings.record(real, isKept: isKept) == .new(real))
        let moved = try Self.sighting(paired.id.rawValue, ip: "192.0.2.30")
        #expect(sightings.record(moved, isKept: isKept) == .moved(moved))
    }
}
