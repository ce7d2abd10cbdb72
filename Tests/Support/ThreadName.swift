import Foundation

/// The kernel's name of the calling thread (`/proc/thread-self/comm`), for tests that check
/// where code runs (a channel's reader thread is `youll-ble-rx`).
public func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
        .trimmingCharacters(in: .whitespacesAndNewlines)
}
