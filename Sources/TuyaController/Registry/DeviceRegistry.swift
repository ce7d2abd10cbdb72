import TuyaCore

/// The paired devices with their links, and the ids being paired now: what the controller
/// routes commands and frames by. An id is in at most one of the two.
struct DeviceRegistry: Sendable {
    private var links: [DeviceID: any DeviceLinkDriver] = [:]
    private var devices: [DeviceID: TuyaDevice] = [:]
    private var pairing: Set<DeviceID> = []

    /// Every paired device, sorted by name, then id.
    var sorted: [TuyaDevice] { devices.values.sorted { ($0.name, $0.id) < ($1.name, $1.id) } }
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
    }

    mutating func unregister(_ id: DeviceID) {
        links[id] = nil
        devices[id] = nil
    }

    mutating func rename(_ id: DeviceID, to name: String) {
        devices[id]?.name = name
    }

    mutating func beginPairing(_ id: DeviceID) {
        pairing.insert(id)
    }

    mutating func endPairing(_ id: DeviceID) {
        pairing.remove(id)
    }
}
