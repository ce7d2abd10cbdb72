import Foundation

/// When a `backup` request may write a copy, and which copies to delete after, as pure
/// rules: a request can come from anyone on the broker, so copies are rate-limited, a
/// copy is refused when it would leave the disk nearly full, and only the newest `keep`
/// are kept.
struct BackupRotation: Hashable, Sendable {
    /// Copies kept in the backup folder (the newest).
    var keep = 5
    /// At most one copy per this long.
    var minimumInterval: Duration = .seconds(60)
    /// A copy needs this much room left after it, on top of its own size.
    var reserveBytes: Int64 = 16 << 20

    /// Why a copy may not be written now; nil when it may. `lastBackup` is how long ago the
    /// last one was written (nil: none since the start).
    func refusal(sinceLastBackup: Duration?, databaseBytes: Int64, freeBytes: Int64?) -> String? {
        if let since = sinceLastBackup, since < minimumInterval {
            let wait = Int((minimumInterval - since).components.seconds) + 1
            return
                "a backup was written \(since.components.seconds) s ago; one per \(minimumInterval.components.seconds) s, try again in \(wait) s"
        }
        if let free = freeBytes, free < databaseBytes + reserveBytes {
            return
                "only \(free >> 20) MiB free in the state directory; a copy of \(max(1, databaseBytes >> 20)) MiB needs \((databaseBytes + reserveBytes) >> 20) MiB"
        }
        return nil
    }

    /// The copies to delete once `written` was: all but the newest `keep` of the gateway's own
    /// (`youll-devices-*.sqlite`; their names sort by time), never another file, and never
    /// `written` itself, which counts as the newest whatever its name (a clock set back after
    /// earlier copies would otherwise sort it first and delete it at once).
    func expired(_ names: [String], written: String) -> [String] {
        let ours = names.filter { $0 != written && $0.hasPrefix("youll-devices-") && $0.hasSuffix(".sqlite") }.sorted()
        return Array(ours.dropLast(max(0, keep - 1)))
    }
}
