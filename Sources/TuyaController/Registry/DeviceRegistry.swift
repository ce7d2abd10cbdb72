import TuyaCore

/// The paired devices with their links, and the ids being paired now: what the controller
/// routes commands and frames by. An id is in at most one of the two.
struct DeviceRegistry: Sendable {
    private var links: [DeviceID: any DeviceLinkDriver] = [:]
    private var devices: [DeviceID: TuyaDevice] = [:]
    private var pairing: Set<DeviceID> = []
    /// `devices` sorted by name, then id, kept until the next change: every `/set` looks its
    /// device up by name, and sorting 1,000 devices for each would cost more than the command.
    private var sortedCache: [TuyaDevice]?

    /// Every paired device, sorted by name, then id.
    mutating func sorted() -> [TuyaDevice] {
        if let sortedCache { return sortedCache }
        let sorted = devices.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        sortedCache = sorted
        return sorted
    }

    /// The device named `name` (the one with the smallest id if several are), else the one
    /// whose id is `name`: how the bridge API resolves `<base>/<name>/set`.
    mutating func device(named name: String) -> TuyaDevice? {
        let sorted = sorted()
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].name < name { low = middle + 1 } else { high = middle }
        }
        if low < sorted.count, sorted[low].name == name { return sorted[low] }
        return DeviceID(name).flatMap { devices[$0] }
    }
    var allLinks: [any DeviceLinkDriver] { Array(links.values) }

    func device(_ id: DeviceID) -> TuyaDevice? { devices[id] }
    func link(_ id: DeviceID) -> (any DeviceLinkDriver)? { links[id] }
    func isPairing(_ id: DeviceID) -> Bool { pairing.contains(id) }
    /// Neither paired nor being paired: a pairing may start.
    func isFree(_ id: DeviceID) -> Bool { devices[id] == nil && !pairing.contains(id) }

    /// The links of one transport.
    func links<Link: DeviceLinkDriver>(of type: Link.Type) -> [Link] { links.values.compactMap { $0 as? Link } }

    mutating func register(_ link: any DeviceLinkDriver, as device: TuyaDevice) {
        links[device.id] = link
        devices[device.id] = device
        sortedCache = nil
    }

    mutating func unregister(_ id: DeviceID) {
        links[id] = nil
        devices[id] = nil
        sortedCache = nil
    }

    mutating func rename(_ id: DeviceID, to name: String) {
        devices[id]?.name = name
        sortedCache = nil
    }

    mutating func beginPairing(_ id: DeviceID) {
        pairing.insert(id)
    }

    mutating func endPairing(_ id: DeviceID) {
        pairing.remove(id)
    }
}
