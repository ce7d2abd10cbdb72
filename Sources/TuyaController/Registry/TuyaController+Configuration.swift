extension TuyaController {
    /// Timeouts and intervals of the controller and its links.
    public struct Configuration: Hashable, Sendable {
        /// How long `pair` waits for a decryptable report.
        public var pairingTimeout: Duration = .seconds(15)
        /// How long `send` waits for the device to confirm.
        public var confirmationTimeout: Duration = .seconds(5)
        public var queryInterval: Duration = .seconds(30)
        public var maxUnansweredQueries = 3
        /// No traffic for this long means offline; nil: `queryInterval * (maxUnansweredQueries + 1)`.
        public var silenceTimeout: Duration?
        /// How long `pairBLE` waits for the device to connect, pair and answer its first
        /// query. Longer than the session's 60 s response timeout, so a device that stays
        /// silent (a wrong key) is reported as such rather than as a timeout.
        public var blePairingTimeout: Duration = .seconds(75)
        /// How long `send` waits for a BLE device (which may need to connect and pair first).
        public var bleConfirmationTimeout: Duration = .seconds(15)
        /// How long `pairLAN` waits for the device to connect, agree a session key and answer.
        public var lanPairingTimeout: Duration = .seconds(15)

        public init() {}
    }
}
