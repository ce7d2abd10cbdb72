import Logging
import Synchronization

/// A `Logger` whose lines are kept for the test to read: what the daemon's log would show.
final class CapturedLog: Sendable {
    struct Line: Sendable, Hashable {
        var level: Logger.Level
        var message: String
    }

    private final class Box: Sendable {
        let lines = Mutex<[Line]>([])
    }

    private let box = Box()

    var lines: [Line] { box.lines.withLock { $0 } }

    /// Logs every level into this capture.
    var logger: Logger {
        let box = box
        var logger = Logger(label: "captured") { _ in Handler(box: box) }
        logger.logLevel = .trace
        return logger
    }

    private struct Handler: LogHandler {
        let box: Box
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            box.lines.withLock { $0.append(Line(level: event.level, message: event.message.description)) }
        }
    }
}
