import Testing

@testable import Gateway

@Suite("Process memory for bridge/health")
struct ProcessMemoryTests {
    @Test("resident memory is statm's second field in pages; garbage gives nil, not a crash")
    func statm() {
        #expect(
            ProcessMemory.residentBytes(statm: "52000 3000 1200 400 0 9000 0\n", pageSize: 4096) == Int64(12_288_000))
        #expect(ProcessMemory.residentBytes(statm: "", pageSize: 4096) == nil)
        #expect(ProcessMemory.residentBytes(statm: "12 -4 0", pageSize: 4096) == nil)
        #expect(ProcessMemory.residentBytes(statm: "1 x 2", pageSize: 4096) == nil)
        #expect(ProcessMemory.residentBytes(statm: "1 9223372036854775807", pageSize: 4096) == nil)
        #expect(ProcessMemory.residentBytes(statmFile: "/nonexistent/statm") == nil)
        // On Linux the gateway's own process has some.
        #expect((ProcessMemory.residentBytes() ?? 0) > 0)
    }
}
