#if canImport(Glibc)
    import Glibc
#endif

extension BridgeServer {
    /// Gives the heap freed after a full republish back to the system, once the outbox has
    /// sent it. The republish builds every device's retained messages and Home Assistant
    /// configs at once (several MB for 1,000 devices) and frees them; glibc keeps freed
    /// memory in its arenas, so without this the daemon's RSS would stay at that peak.
    /// Not waited for: events keep flowing meanwhile.
    func releaseRepublishPeak() {
        let outbox = publisher.outbox
        Task.detached(priority: .background) {
            await outbox.flush(timeout: .seconds(30))
            HeapTrim.trim()
        }
    }
}

/// glibc's `malloc_trim(0)`, which `Glibc` does not export (it is in `<malloc.h>`): looked
/// up by name, and nothing where the C library has none.
enum HeapTrim {
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let function: Trim? = {
        #if canImport(Glibc)
            // RTLD_DEFAULT: the process's global symbols.
            guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: Trim.self)
        #else
            return nil
        #endif
    }()

    static func trim() {
        _ = function?(0)
    }
}
