import TuyaCore

/// A command the device's link has queued (`TuyaController.submit`), and the answer to come:
/// the state the device confirms, or why there is none. It is awaited once, hence not copyable.
public struct CommandReceipt: ~Copyable, Sendable {
    private let answer: CommandAnswer

    init(_ answer: CommandAnswer) { self.answer = answer }

    /// The state the device confirms, with `TuyaController.send`'s errors.
    public consuming func confirmation() async throws -> DeviceState { try await answer.value }
}
