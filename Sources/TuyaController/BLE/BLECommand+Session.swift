import TuyaWire

extension BLECommand {
    /// A readable name for errors and logs.
    var name: String {
        switch self {
        case .deviceInfo: "device info (0x0000)"
        case .pair: "pair (0x0001)"
        case .dpWriteV3: "DP write (0x0002)"
        case .query: "query (0x0003)"
        case .dpWriteV4: "DP write (0x0027)"
        default: description
        }
    }

    var isV4Report: Bool { self == .dpReportV4 || self == .dpReportV4WithTime }
}
