#if canImport(Glibc)
    import Glibc
#endif

/// Names the calling thread for the kernel (at most 15 bytes), as `top -H`, `perf` and /proc
/// show it. Foundation keeps a name set before `start()` to itself, so BLELink's threads
/// showed under the name of the thread that started them (a dispatch worker's). The function
/// is looked up at run time because Swift's Glibc module leaves GNU extensions out; without
/// it, the thread keeps its name.
func nameCurrentThread(_ name: String) {
    typealias SetName = @convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pthread_setname_np") else { return }
    _ = unsafeBitCast(symbol, to: SetName.self)(pthread_self(), String(decoding: name.utf8.prefix(15), as: UTF8.self))
}
