import Foundation
import GRDB
import TuyaCore

extension GatewayDatabase {
    /// Notes frames from an unknown devId. Keeps the `candidateLimit` most recently seen,
    /// trimming in the same transaction.
    public func recordCandidate(_ devId: DeviceID, frames: Int = 1, at now: Date = Date()) async throws(StorageError) {
        let limit = candidateLimit
        try await write("recording pairing candidate \(devId)") { db in
            try db.execute(
                sql: """
                    INSERT INTO pairing_candidates (dev_id, first_seen, last_seen, frames) VALUES (?, ?, ?, ?)
                    ON CONFLICT(dev_id) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen),
                        frames = frames + excluded.frames
                    """,
                arguments: [devId.rawValue, StoredInstant(now), StoredInstant(now), frames])
            try db.execute(
                sql: """
                    DELETE FROM pairing_candidates WHERE dev_id IN (
                        SELECT dev_id FROM pairing_candidates ORDER BY last_seen DESC, dev_id LIMIT -1 OFFSET ?)
                    """,
                arguments: [limit])
        }
    }

    /// Candidates, most recently seen first.
    public func candidates() async throws(StorageError) -> [PairingCandidate] {
        try await read("loading pairing candidates") { db in
            try Row.fetchAll(db, sql: "SELECT * FROM pairing_candidates ORDER BY last_seen DESC, dev_id")
                .compactMap { row in
                    let reader = ColumnReader(row: row)
                    guard let id = reader.text("dev_id").flatMap(DeviceID.init),
                        let frames = reader.value("frames", as: Int.self)
                    else { return nil }
                    return PairingCandidate(
                        id: id, firstSeen: row.date("first_seen") ?? .distantPast,
                        lastSeen: row.date("last_seen") ?? .distantPast, frames: frames)
                }
        }
    }

    /// Forgets a candidate (it was paired, or dismissed).
    public func removeCandidate(_ devId: DeviceID) async throws(StorageError) {
        try await write("removing pairing candidate \(devId)") { db in
            try db.execute(sql: "DELETE FROM pairing_candidates WHERE dev_id = ?", arguments: [devId.rawValue])
        }
    }
}
