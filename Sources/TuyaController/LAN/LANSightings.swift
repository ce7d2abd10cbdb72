import Foundation
import TuyaCore
import TuyaWire

/// The latest broadcast of every LAN device heard, bounded, as a pure value: what pairing
/// looks up an IP and version in, what follows a paired device to a new address, and what
/// lists unknown devices as candidates.
struct LANSightings: Sendable {
    /// Bounded: a flood of forged broadcasts cannot grow it without limit.
    static let capacity = 1024

    /// What one datagram meant.
    enum Change: Hashable, Sendable {
        /// A device heard for the first time (since start).
        case new(LANSighting)
        /// A device heard before, now at another address or with another version.
        case moved(LANSighting)
        /// Nothing new.
        case same(LANSighting)
    }

    private var latest: [DeviceID: LANSighting] = [:]
    /// Paired devices heard at a new address while their session was up: their next
    /// broadcasts are offered to their link again, not only the first one (`.moved`).
    private var heldMoves: Set<DeviceID> = []

    func isMoveHeld(_ id: DeviceID) -> Bool { heldMoves.contains(id) }
    mutating func holdMove(_ id: DeviceID) { heldMoves.insert(id) }
    mutating func releaseMove(_ id: DeviceID) { heldMoves.remove(id) }

    func sighting(of id: DeviceID) -> LANSighting? { latest[id] }

    var all: [LANSighting] { latest.values.sorted { $0.id < $1.id } }

    /// Decodes a datagram from `source`; nil when it is not a device announcement this
    /// gateway can read (a solicitation, garbage, an invalid id), or when it claims an address
    /// other than the one it came from (a forged broadcast must not send a device's link
    /// elsewhere).
    static func decode(_ datagram: [UInt8], source: String, at now: Date) -> LANSighting? {
        guard case .announcement(let broadcast, _)? = try? LANDiscovery.decode(datagram),
            let id = DeviceID(broadcast.gwId), LANEndpoint.isIPv4(broadcast.ip), broadcast.ip == source
        else { return nil }
        return LANSighting(
            id: id, ip: broadcast.ip, version: broadcast.version, productKey: broadcast.productKey, lastSeen: now)
    }

    /// Records a sighting. When the table is full a new device takes the place of one that
    /// `isKept` does not keep (the paired devices): a burst of forged ids once filled it until
    /// the next start, and no real device was recorded after it, nor a paired one's new address.
    mutating func record(_ sighting: LANSighting, isKept: (DeviceID) -> Bool = { _ in false }) -> Change? {
        guard let previous = latest[sighting.id] else {
            if latest.count >= Self.capacity {
                guard let evicted = latest.keys.first(where: { !isKept($0) }) else { return nil }
                latest[evicted] = nil
            }
            latest[sighting.id] = sighting
            return .new(sighting)
        }
        latest[sighting.id] = sighting
        if previous.ip != sighting.ip || previous.version != sighting.version { return .moved(sighting) }
        return .same(sighting)
    }
}
