import Foundation
import Testing
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `serve` under systemd's `Type=notify` contract, with a real datagram socket playing systemd.
@Suite("youll-devices serve under systemd", .serialized)
struct DaemonSystemdTests {
    @Test("READY=1 once the bridge is up, WATCHDOG=1 pings at half of WatchdogSec, STOPPING=1 on SIGTERM")
    func notifyProtocol() async throws {
        let rig = try await DaemonRig()
        let socket = try NotifySocketListener()
        // WatchdogSec=1s: the daemon must ping every 0.5 s.
        try await rig.startDaemon(environment: [
            "NOTIFY_SOCKET": socket.environmentValue, "WATCHDOG_USEC": "1000000",
        ])
        var messages: [String] = []
        while !messages.contains(where: { $0.hasPrefix("READY=1") }) || !messages.contains("WATCHDOG=1") {
            guard let message = socket.receive(waitingUpTo: .seconds(10)) else { break }
            messages.append(message)
        }
        let ready = try #require(messages.first { $0.hasPrefix("READY=1") }, "\(messages)")
        #expect(ready.contains("STATUS=0 devices"))
        #expect(messages.contains("WATCHDOG=1"))

        let pid = try #require(rig.daemon?.pid)
        kill(pid, SIGTERM)
        var stopping = false
        while let message = socket.receive(waitingUpTo: .seconds(10)) {
            if message == "STOPPING=1" {
                stopping = true
                break
            }
        }
        #expect(stopping)
        #expect(rig.stopDaemon() == 0)
        await rig.shutdown()
    }
}
