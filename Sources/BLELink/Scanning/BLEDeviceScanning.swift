/// A scan for BLE devices, whichever way the gateway reaches its controller: `BLEScanner`
/// through BlueZ, `HCIScanner` through the gateway's own HCI host. Both give the same
/// `DiscoveredDevice`s, so the Tuya advert parsing above does not care which.
public protocol BLEDeviceScanning: Actor {
    /// Starts scanning; each time a device is heard the stream yields it, until `stop()`.
    func discoveries() async throws -> AsyncStream<DiscoveredDevice>
    /// Stops scanning and ends the stream.
    func stop() async
}

extension BLEScanner: BLEDeviceScanning {
    public func discoveries() async throws -> AsyncStream<DiscoveredDevice> { try start() }
}

extension HCIScanner: BLEDeviceScanning {
    public func discoveries() async throws -> AsyncStream<DiscoveredDevice> { try await start() }
}
