extension TuyaController {
    /// Timeouts and intervals of the controller and its links.
    public struct Configuration: Hashable, Sendable {
        /// How long `pair` waits for a decryptable report.
        public var pairingTimeout: Duration = .seconds(15)
        /// How long `send` waits for the device to confirm.
        public var confirmationTimeout: Duration = .seconds(5)
        /// How often a healthy MQTT device is asked for its values.
        public var queryInterval: Duration = .seconds(60)
        /// A query not answered this soon is missed; the next goes out sooner, backing off.
        public var answerTimeout: Duration = .seconds(5)
        /// No answer for this long after a missed query means offline.
        public var offlineAfter: Duration = .seconds(30)
        /// Undecryptable frames, with no good one in between, that mean a wrong local key.
        public var keyMismatchesForAuthFailure = 3
        /// How long `pairBLE` waits for the device to connect, pair and answer its first
        /// query. Longer than the session's 60 s response timeout, so a device that stays
        /// silent (a wrong key) is reported as such rather than as a timeout.
        public var blePairingTimeout: Duration = .seconds(75)
        /// How long `send` waits for a BLE device (which may need to connect and pair first).
        public var bleConfirmationTimeout: Duration = .seconds(15)
        /// How long `pairLAN` waits for the device to connect, agree a session key and answer.
        public var lanPairingTimeout: Duration = .seconds(15)
        /// How long a desired value the device has not confirmed is re-applied when it
        /// returns; after that it is dropped, so a light never switches on hours after it was
        /// asked (`devices.reapply_within`). Nil re-applies for ever.
        public var reapplyWithin: Duration? = .seconds(120)

        public init() {}
    }
}
