import Foundation

/// A device heard during a scan: its latest advertisement and scan response, merged.
public struct DiscoveredDevice: Hashable, Sendable {
    /// `AA:BB:CC:DD:EE:FF`.
    public var address: String
    public var addressType: BluetoothAddressType
    /// The latest signal strength measured, in dBm; nil if the controller never measured one.
    public var rssi: Int?
    public var firstSeen: Date
    public var lastSeen: Date
    /// The latest advertising PDU's data (ADV_IND and kin), nil until one was heard.
    public var advertisement: AdvertisingData?
    /// The latest scan response's data, nil until one was heard (or in a passive scan).
    public var scanResponse: AdvertisingData?
    /// Whether the latest advertisement allows a connection.
    public var isConnectable: Bool

    public init(
        address: String, addressType: BluetoothAddressType, rssi: Int?, firstSeen: Date, lastSeen: Date,
        advertisement: AdvertisingData?, scanResponse: AdvertisingData?, isConnectable: Bool
    ) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.advertisement = advertisement
        self.scanResponse = scanResponse
        self.isConnectable = isConnectable
    }

    /// The advertisement followed by the scan response: Tuya puts the product id in one and
    /// the manufacturer data and name in the other (protocol/TUYA.md §1.2).
    public var data: AdvertisingData {
        (advertisement ?? AdvertisingData()).merged(with: scanResponse ?? AdvertisingData())
    }

    public var localName: String? { data.localName }
}
