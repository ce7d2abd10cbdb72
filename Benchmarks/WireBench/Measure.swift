import Foundation
import TuyaWire

#if canImport(Glibc)
    import Glibc
#endif

struct BenchOptions {
    var seconds = 1.0
    var body = #"{"protocol":5,"t":1732200000,"data":{"dps":{"20":true,"22":500}}}"#
}

/// Keeps the optimiser from deleting the work being measured.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Operations per second: the best of three runs of about `seconds` each, in batches so
/// reading the clock costs nothing measurable.
func rate(seconds: Double, _ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    var best = 0.0
    let batch = 1000
    for _ in 0..<3 {
        var count = 0
        let start = clock.now
        var elapsed = 0.0
        repeat {
            for _ in 0..<batch { try body() }
            count += batch
            let duration = start.duration(to: clock.now)
            elapsed = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        } while elapsed < seconds
        best = max(best, Double(count) / elapsed)
    }
    return best
}

func report(_ name: String, _ value: Double, _ unit: String) {
    print("BENCH \(name) \(String(format: "%.0f", value)) \(unit)")
}

/// Where the two threads of an echo floor run. Left to the scheduler, a two-thread echo lands
/// on one CPU or on two from run to run, and on a virtual machine whose idle CPUs halt the two
/// differ several times over (here about 7–13 µs against about 50 µs): the unpinned floor is
/// one or the other. The pinned floors, measured in the same run, say which.
enum EchoPlacement: String, CaseIterable {
    /// Both ends on one CPU: each hand-over is a context switch on that CPU.
    case sameCPU = "same-cpu"
    /// The ends on two CPUs: each hand-over wakes the other CPU.
    case crossCPU = "cross-cpu"

    /// The CPUs of the two ends, from those this process may run on; nil when it may run on
    /// fewer CPUs than the placement needs.
    var cpus: (Int32, Int32)? {
        let allowed = allowedCPUs()
        switch self {
        case .sameCPU: return allowed.first.map { ($0, $0) }
        case .crossCPU: return allowed.count >= 2 ? (allowed[0], allowed[1]) : nil
        }
    }
}

/// The echo floor measured pinned each way this machine allows, each reported as
/// `<name>.<placement>.p50` and `.p99` in microseconds; `measure` returns sorted round trips.
func pinnedFloors(_ name: String, _ measure: (EchoPlacement) throws -> [Double]) rethrows -> [(
    EchoPlacement, [Double]
)] {
    try EchoPlacement.allCases.filter { $0.cpus != nil }.map { placement in
        let times = try measure(placement)
        for (percentile, index) in [("p50", times.count / 2), ("p99", times.count * 99 / 100)] {
            print("BENCH \(name).\(placement.rawValue).\(percentile) \(String(format: "%.1f", times[index])) us")
        }
        return (placement, times)
    }
}

/// `<name>-<placement>.ratio` for each pinned floor: the p50 of `times` over the floor's.
func reportRatios(_ name: String, of times: [Double], to floors: [(EchoPlacement, [Double])]) {
    for (placement, floor) in floors {
        let ratio = times[times.count / 2] / floor[floor.count / 2]
        print("BENCH \(name)-\(placement.rawValue).ratio \(String(format: "%.2f", ratio)) x")
    }
}

/// glibc's `sched_getaffinity` and `sched_setaffinity` (pid 0: the calling thread), looked up
/// at run time: Swift's Glibc module declares them only under _GNU_SOURCE.
private typealias AffinityCall = @convention(c) (pid_t, Int, UnsafeMutableRawPointer) -> Int32
private let affinityCalls: (get: AffinityCall, set: AffinityCall)? = {
    let handle = dlopen(nil, RTLD_NOW)
    guard let get = dlsym(handle, "sched_getaffinity"), let set = dlsym(handle, "sched_setaffinity") else {
        return nil
    }
    return (unsafeBitCast(get, to: AffinityCall.self), unsafeBitCast(set, to: AffinityCall.self))
}()

private func sched_getaffinity(_ pid: pid_t, _ size: Int, _ set: inout cpu_set_t) -> Int32 {
    guard let affinityCalls else { return -1 }
    return withUnsafeMutableBytes(of: &set) { affinityCalls.get(pid, size, $0.baseAddress!) }
}

private func sched_setaffinity(_ pid: pid_t, _ size: Int, _ set: inout cpu_set_t) -> Int32 {
    guard let affinityCalls else { return -1 }
    return withUnsafeMutableBytes(of: &set) { affinityCalls.set(pid, size, $0.baseAddress!) }
}

/// The CPUs the calling thread may run on.
func allowedCPUs() -> [Int32] {
    var set = cpu_set_t()
    guard sched_getaffinity(0, MemoryLayout<cpu_set_t>.size, &set) == 0 else { return [] }
    return withUnsafeBytes(of: &set) { bytes in
        (0..<Int32(bytes.count * 8)).filter { cpu in bytes[Int(cpu) / 8] & (1 << UInt8(cpu % 8)) != 0 }
    }
}

/// Runs `body` with the calling thread allowed on `cpu` alone (nil: wherever it was), then
/// allows it where it was allowed before. `body` must not suspend: the thread is pinned, not
/// the task.
func pinned<T>(to cpu: Int32?, _ body: () throws -> T) rethrows -> T {
    guard let cpu else { return try body() }
    let size = MemoryLayout<cpu_set_t>.size
    var before = cpu_set_t()
    let saved = sched_getaffinity(0, size, &before) == 0
    var only = cpu_set_t()
    withUnsafeMutableBytes(of: &only) { $0[Int(cpu) / 8] |= 1 << UInt8(cpu % 8) }
    _ = sched_setaffinity(0, size, &only)
    defer { if saved { _ = sched_setaffinity(0, size, &before) } }
    return try body()
}

/// Context switches of every thread of this process so far, voluntary and forced (getrusage):
/// around a loop of DP writes, how many times a thread gave up or lost its CPU per write. The
/// simulated device runs in this process too, so its threads count: on one CPU a raw echo
/// between two threads costs two.
func processContextSwitches() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return usage.ru_nvcsw + usage.ru_nivcsw
}

extension LANProtocolVersion {
    /// The prefix of this version's benchmark names: `lan33`, `lan34`, `lan35`.
    var benchName: String { "lan" + rawValue.replacingOccurrences(of: ".", with: "") }
}
