/// Why the userspace HCI host could not do what was asked, in words a user can act on.
public enum HCIHostError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The byte stream to the controller could not be opened, or broke (`detail` says which and
    /// names the transport).
    case transport(String)
    /// The controller's byte stream ended: the emulator stopped, the adapter was unplugged.
    case controllerGone(String)
    /// The controller did not answer a command in time.
    case commandTimeout(HCIOpcode, after: Duration)
    /// The controller refused a command.
    case commandFailed(HCIOpcode, HCIErrorCode)
    /// The controller reported a hardware error and lost its state.
    case hardwareError(code: UInt8)
    /// The controller sent bytes that are not HCI; the stream cannot be trusted any more.
    case malformed(HCIPacketError)
    /// No connection to the device within the timeout (out of range, off, or connected to a phone).
    case connectTimedOut(address: String, after: Duration)
    /// The controller could not make the connection.
    case connectFailed(address: String, HCIErrorCode)
    /// The connection attempt was cancelled by the caller.
    case connectCancelled(address: String)
    /// Not a device address `AA:BB:CC:DD:EE:FF`.
    case invalidAddress(String)
    /// The link to the device is gone; `reason` is the controller's disconnection reason.
    case disconnected(address: String, reason: HCIErrorCode)
    /// `close()` was called on the host.
    case closed

    public var description: String {
        switch self {
        case .transport(let detail):
            detail
        case .controllerGone(let detail):
            "the Bluetooth controller went away: \(detail); check that it is plugged in (or the emulator is running)"
        case .commandTimeout(let opcode, let after):
            "the Bluetooth controller did not answer \(opcode) within \(after); check the transport (baud rate, "
                + "flow control) and that no other program uses the controller"
        case .commandFailed(let opcode, let code):
            "the Bluetooth controller refused \(opcode): \(code)"
        case .hardwareError(let code):
            "the Bluetooth controller reported hardware error 0x\(hex(code)) and lost its state; it will be reset"
        case .malformed(let error):
            "the Bluetooth controller sent malformed HCI data: \(error)"
        case .connectTimedOut(let address, let after):
            "no connection to \(address) within \(after): check that the device is powered, in range, and not "
                + "connected to a phone app (a Tuya device accepts one central at a time)"
        case .connectFailed(let address, let code):
            "connecting to \(address) failed: \(code)"
        case .connectCancelled(let address):
            "the connection attempt to \(address) was cancelled"
        case .invalidAddress(let text):
            "'\(text.prefix(40))' is not a Bluetooth address; write it as six hex pairs, AA:BB:CC:DD:EE:FF"
        case .disconnected(let address, let reason):
            "the BLE link to \(address) is down: \(reason)"
        case .closed:
            "the HCI host was closed"
        }
    }
}
