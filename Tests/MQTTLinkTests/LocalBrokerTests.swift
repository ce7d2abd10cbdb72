import Foundation
import LocalBroker
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The private broker's ports: a CI run once failed because the port chosen for a broker
/// was taken by another test's outgoing connection before mosquitto could bind it.
@Suite("the tests' private broker")
struct LocalBrokerTests {
    @Test("free ports come from below the kernel's ephemeral range and are never handed out twice")
    func portsOutsideTheEphemeralRange() throws {
        let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        let ephemeralStart = try #require(Int(range.split(whereSeparator: \.isWhitespace)[0]))
        var seen = Set<Int>()
        for _ in 0..<50 {
            let port = try LocalBroker.freeLoopbackPort()
            if ephemeralStart > 11_000 { #expect(port < ephemeralStart) }
            #expect(seen.insert(port).inserted, "port \(port) handed out twice")
        }
    }

    @Test("two brokers started side by side get their own ports and both accept clients")
    func twoBrokers() async throws {
        let first = try await LocalBroker.started()
        let second = try await LocalBroker.started(plainListener: true)
        let ports = [first.port, second.port, try #require(second.plainPort)]
        #expect(Set(ports).count == 3)
        #expect(first.isRunning && second.isRunning)
        // A restart keeps the port clients were given.
        let before = first.port
        first.stop()
        try await first.restart()
        #expect(first.port == before)
        #expect(first.isRunning)
    }
}
