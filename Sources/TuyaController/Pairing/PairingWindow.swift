import Foundation
import TuyaCore

/// The pairing window and the unknown devices heard while it is open, as a pure value:
/// devIds publishing on the broker (and, for LAN, devices broadcasting) that are not paired
/// are listed as candidates the user might add with their local key.
struct PairingWindow: Sendable {
    /// Bounded: a hostile publisher inventing devIds cannot grow the list without limit.
    static let capacity = 1024

    private(set) var isOpen = false
    private var candidates: [DeviceID: PairingCandidate] = [:]

    mutating func open() {
        isOpen = true
    }

    mutating func close() {
        isOpen = false
        candidates = [:]
    }

    /// The candidates, first heard first.
    var list: [PairingCandidate] {
        candidates.values.sorted { ($0.firstSeen, $0.id) < ($1.firstSeen, $1.id) }
    }

    /// A device is being paired now: it is no longer a candidate.
    mutating func forget(_ id: DeviceID) {
        candidates[id] = nil
    }

    /// An unknown device was heard at `now` (with what its LAN broadcast said, for a LAN
    /// device); returns the candidate when it is new (to be announced once per window).
    /// Nothing is noted while the window is closed.
    mutating func heard(_ id: DeviceID, at now: Date, lan: LANSighting? = nil) -> PairingCandidate? {
        guard isOpen else { return nil }
        if var candidate = candidates[id] {
            candidate.lastSeen = now
            candidate.frames += 1
            candidate.lan = lan ?? candidate.lan
            candidates[id] = candidate
            return nil
        }
        guard candidates.count < Self.capacity else { return nil }
        let candidate = PairingCandidate(id: id, firstSeen: now, lastSeen: now, frames: 1, lan: lan)
        candidates[id] = candidate
        return candidate
    }
}
