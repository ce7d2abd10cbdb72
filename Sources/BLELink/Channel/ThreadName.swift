#if canImport(Glibc)
    import Glibc
#endif

/// glibc's `pthread_setname_np`, looked up once at run time because Swift's Glibc module
/// leaves GNU extensions out; nil where the C library has none.
private let setThreadName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "pthread_setname_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
}()

/// Names the calling thread for the kernel (at most 15 bytes), as `top -H`, `perf` and /proc
/// show it. Foundation keeps a name set before `start()` to itself, so BLELink's threads
/// showed under the name of the thread that started them (a dispatch worker's). Without
/// `pthread_setname_np` the thread keeps its name.
func nameCurrentThread(_ name: String) {
    _ = setThreadName?(pthread_self(), String(decoding: name.utf8.prefix(15), as: UTF8.self))
}
