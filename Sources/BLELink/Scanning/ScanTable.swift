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
///
/// An extended advertisement longer than the controller sends in one report comes as several,
/// each but the last flagged "more data to come" (Core Specification Vol 4 Part E §7.7.65.13):
/// their bytes are held per advertising set and joined, and the device's data changes only once
/// it is whole. Legacy PDUs never join a chain. At most `maximumData` bytes are held per set,
/// for at most `fragmentLifetime`, and for at most `capacity` sets. A chain the controller cut
/// short ("truncated") does not replace data already whole.
public struct ScanTable: Sendable {
    public private(set) var devices: [String: DiscoveredDevice] = [:]
    public let capacity: Int
    /// The most AD bytes an extended advertisement carries.
    public static let maximumData = 1650

    /// How long a part waits for the rest (the longest gap between the packets of a chain is
    /// about 2.5 s); a part older than that is dropped, not put in front of the next advert.
    public static let fragmentLifetime: TimeInterval = 3

    /// Parts held, by advertiser, advertising set, and advertisement or scan response.
    private struct FragmentKey: Hashable {
        var address: String
        var addressType: BluetoothAddressType
        var sid: UInt8
        var isScanResponse: Bool
    }

    private var fragments: [FragmentKey: (bytes: [UInt8], at: Date)] = [:]

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

    /// Records one report (a fragment of a longer one only as the device being heard).
    public mutating func receive(_ report: AdvertisingReport, at time: Date) -> ScanEvent {
        var report = report
        var heldBack = false
        if let part = report.chain {
            let key = FragmentKey(
                address: report.address, addressType: report.addressType, sid: part.sid,
                isScanResponse: report.eventType.isScanResponse)
            var joined: [UInt8] = []
            if let held = fragments.removeValue(forKey: key),
                (0...Self.fragmentLifetime).contains(time.timeIntervalSince(held.at))
            {
                joined = held.bytes
            }
            joined += part.bytes.prefix(max(0, Self.maximumData - joined.count))
            if part.continues {
                if fragments.count >= capacity { fragments.removeAll() }
                fragments[key] = (joined, time)
                heldBack = true
            } else {
                report.data = AdvertisingData(bytes: joined)
            }
        }
        let isNew = devices[report.address] == nil
        if isNew, devices.count >= capacity { evictOldest() }
        var device =
            devices[report.address]
            ?? DiscoveredDevice(
                address: report.address, addressType: report.addressType, rssi: nil, firstSeen: time, lastSeen: time,
                advertisement: nil, scanResponse: nil, isConnectable: false)
        device.lastSeen = max(device.lastSeen, time)
        if let rssi = report.rssi { device.rssi = rssi }
        let whole = report.eventType.isScanResponse ? device.scanResponse : device.advertisement
        if heldBack || (!report.isDataComplete && whole != nil) {
            // Heard; its data changes once the rest has come (never to a truncated chain).
        } else if report.eventType.isScanResponse {
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
        fragments = fragments.filter { $0.value.at >= cutoff }
    }

    private mutating func evictOldest() {
        guard let oldest = devices.values.min(by: { ($0.lastSeen, $0.address) < ($1.lastSeen, $1.address) }) else {
            return
        }
        devices[oldest.address] = nil
    }
}
