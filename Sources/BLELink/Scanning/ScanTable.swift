import Foundation

/// What one HCI packet did to the scan results.
public enum ScanEvent: Hashable, Sendable {
    /// A device was heard; `isNew` when it was not in the table before.
    case seen(DiscoveredDevice, isNew: Bool)
    /// The packet was malformed and left the table unchanged.
    case rejected(HCIEventError)
}

/// The pure core of a scan: HCI event packets in, deduplicated devices out.
///
/// The adapter reports every advertisement (duplicate filtering is off so RSSI stays live),
/// so this table keys devices by address, keeps the latest RSSI and time heard, and keeps the
/// latest advertisement and the latest scan response apart so that they merge
/// (`DiscoveredDevice.data`). A flood of random addresses cannot grow it without bound: past
/// `capacity` the device heard longest ago is dropped.
public struct ScanTable: Sendable {
    public private(set) var devices: [String: DiscoveredDevice] = [:]
    public let capacity: Int

    public init(capacity: Int = 512) {
        self.capacity = max(1, capacity)
    }

    /// Devices by signal strength, strongest first (unknown RSSI last), then by address.
    public var sorted: [DiscoveredDevice] {
        devices.values.sorted { lhs, rhs in
            let (left, right) = (lhs.rssi ?? Int.min, rhs.rssi ?? Int.min)
            return left != right ? left > right : lhs.address < rhs.address
        }
    }

    /// Reads one packet from the HCI socket heard at `time`. Events other than advertising
    /// reports produce nothing.
    public mutating func receive(packet: some Collection<UInt8>, at time: Date) -> [ScanEvent] {
        do {
            switch try HCIEventParser.parse(packet) {
            case .advertisingReports(let reports): return reports.map { receive($0, at: time) }
            case .ignored: return []
            }
        } catch {
            return [.rejected(error)]
        }
    }

    /// Records one report.
    public mutating func receive(_ report: AdvertisingReport, at time: Date) -> ScanEvent {
        let isNew = devices[report.address] == nil
        if isNew, devices.count >= capacity { evictOldest() }
        var device =
            devices[report.address]
            ?? DiscoveredDevice(
                address: report.address, addressType: report.addressType, rssi: nil, firstSeen: time, lastSeen: time,
                advertisement: nil, scanResponse: nil, isConnectable: false)
        device.lastSeen = max(device.lastSeen, time)
        if let rssi = report.rssi { device.rssi = rssi }
        if report.eventType.isScanResponse {
            device.scanResponse = report.data
        } else {
            device.advertisement = report.data
            device.addressType = report.addressType
            device.isConnectable = report.eventType.isConnectable
        }
        devices[report.address] = device
        return .seen(device, isNew: isNew)
    }

    /// Forgets devices not heard since `cutoff`, for a long-running scan.
    public mutating func forget(notSeenSince cutoff: Date) {
        devices = devices.filter { $0.value.lastSeen >= cutoff }
    }

    private mutating func evictOldest() {
        guard let oldest = devices.values.min(by: { ($0.lastSeen, $0.address) < ($1.lastSeen, $1.address) }) else {
            return
        }
        devices[oldest.address] = nil
    }
}
