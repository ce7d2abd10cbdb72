/// Opens the byte stream a `BLETransportSetting` names, for `HCIHost.open`. Failures are one
/// line each, naming the transport, what went wrong and the fix (no such device, busy,
/// permission, no Bluetooth in the kernel, nothing listening).
public enum HCITransportOpener {
    public static func open(
        _ setting: BLETransportSetting, connectTimeout: Duration = .seconds(5)
    ) async throws(HCIHostError) -> any HCIByteStream {
        switch setting {
        case .bluez:
            throw .transport("bluez: BlueZ uses kernel sockets, not an HCI byte stream")
        case .hciUser(let adapter):
            return try HCIUserChannel.open(adapter: adapter)
        case .h4Serial(let path, let baudRate):
            return try SerialPort.open(path: path, baudRate: baudRate)
        case .h4TCP(let host, let port):
            return try await HCISocketConnector.tcp(host: host, port: port, timeout: connectTimeout)
        case .h4Unix(let path):
            return try HCISocketConnector.unix(path: path)
        }
    }
}
