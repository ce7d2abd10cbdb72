import Logging
import SessionEngine

extension Logger {
    /// A line from the timer (`SessionService` has no logger of its own).
    public func log(_ entry: SessionLogEntry) {
        switch entry.level {
        case .info: info("\(entry.message)")
        case .notice: notice("\(entry.message)")
        case .error: error("\(entry.message)")
        }
    }
}
