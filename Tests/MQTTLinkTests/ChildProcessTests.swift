import Foundation
import LocalBroker
import Testing
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Real parts: child processes of this machine's /bin tools.
@Suite("child processes")
struct ChildProcessTests {
    /// Starts a child and returns: what a synchronous `LocalBroker()` needs of mosquitto.
    static func startSleeper() throws -> ChildProcess {
        try ChildProcess.spawn("/bin/sleep", ["60"])
    }

    @Test(
        "a spawned child outlives the call that started it, and is stopped and reaped from another task (what swift-subprocess's scoped run cannot do)"
    )
    func outlivesItsCaller() async throws {
        let child = try Self.startSleeper()
        #expect(child.isRunning)
        let status = await Task.detached {
            child.signal(SIGTERM)
            return child.waitForExit()
        }.value
        #expect(status == nil, "ended by SIGTERM, not by exiting")
    }

    @Test(
        "a bounded wait gives the exit status of a child that exits, and says still running of one that does not stop on SIGTERM, which a kill then ends"
    )
    func boundedWait() async throws {
        let quick = try ChildProcess.spawn("/bin/sh", ["-c", "exit 4"])
        #expect(await quick.exit(within: .seconds(30)) == .exited(status: 4))

        // A signal ignored before exec stays ignored. The child says, through a FIFO, once
        // its trap is set; opening the FIFO to read returns when the child opens it to write.
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("youll-fifo-\(UUID().uuidString)").path
        try #require(mkfifo(fifo, 0o600) == 0)
        defer { unlink(fifo) }
        let stubborn = try ChildProcess.spawn("/bin/sh", ["-c", "trap '' TERM; echo ready > '\(fifo)'; exec sleep 60"])
        let ready = Task<String?, any Error> {
            await withCheckedContinuation { continuation in
                // Blocking open and reads (until the child closes its end), on a thread of their own.
                Thread {
                    let fd = open(fifo, O_RDONLY)
                    var bytes: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 64)
                    while fd >= 0, case let count = read(fd, &buffer, buffer.count), count > 0 {
                        bytes += buffer[..<count]
                    }
                    if fd >= 0 { close(fd) }
                    continuation.resume(returning: fd < 0 ? nil : String(decoding: bytes, as: UTF8.self))
                }.start()
            }
        }
        #expect(try await ready.value(within: .seconds(30), "the child's trap") == "ready\n")
        stubborn.signal(SIGTERM)
        // SIGTERM is ignored, so no wait is needed to see it still running: a zero bound looks once.
        #expect(await stubborn.exit(within: .zero) == .stillRunning)
        #expect(stubborn.isRunning)
        stubborn.signal(SIGKILL)
        #expect(await stubborn.exit(within: .seconds(30)) == .exited(status: nil))
    }

    @Test("run collects stdout, stderr and the exit status, with the environment given")
    func run() async throws {
        let output = try await ChildProcess.run(
            "/bin/sh", ["-c", "echo out:$GREETING; echo err >&2; exit 3"], environment: ["GREETING": "hello"])
        #expect(output.stdout == "out:hello\n")
        #expect(output.stderr == "err\n")
        #expect(output.status == 3)
    }

    @Test("streamingLines hands over lines as they are printed; a child ended by a signal has no exit status")
    func streaming() async throws {
        let (first, status) = try await ChildProcess.streamingLines(
            "/bin/sh", ["-c", "echo ready; exec sleep 60"]
        ) { lines, signal in
            let first = try await lines.next()
            try signal(SIGKILL)
            return first
        }
        #expect(first == "ready")
        #expect(status == nil)
    }

    /// A file this process holds open without close-on-exec, as NIO holds its sockets;
    /// `body` gets its path. The descriptor is closed afterwards.
    static func withInheritableFile<T>(_ body: (String) async throws -> T) async throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("inherit-\(UUID().uuidString)").path
        let fd = open(path, O_CREAT | O_WRONLY, 0o600)
        try #require(fd >= 0, "cannot create \(path)")
        defer {
            close(fd)
            unlink(path)
        }
        try #require(
            fcntl(fd, F_GETFD) & FD_CLOEXEC == 0, "the descriptor must be inheritable for the test to mean anything")
        return try await body(path)
    }

    /// What `/proc/<pid>/fd` of a live process points at.
    static func openFiles(of pid: pid_t) throws -> [String] {
        let directory = "/proc/\(pid)/fd"
        return try FileManager.default.contentsOfDirectory(atPath: directory).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)")
        }
    }

    @Test(
        "a spawned child holds none of this process's descriptors but the three it was given, even one left without close-on-exec"
    )
    func spawnedChildInheritsNoDescriptor() async throws {
        try await Self.withInheritableFile { path in
            try #require(try Self.openFiles(of: getpid()).contains(path), "this process holds the file")
            let child = try Self.startSleeper()
            defer { child.kill() }
            // posix_spawn returns once the child has exec'd, so its file actions have run.
            let held = try Self.openFiles(of: child.pid)
            #expect(!held.contains(path), "\(held)")
            // Only its three standard descriptors come from here; what the child opened itself
            // once running (sleep reads its locale) is not inherited.
            let ours = Set(try Self.openFiles(of: getpid()))
            let inherited = held.filter { ours.contains($0) && $0 != "/dev/null" }
            #expect(inherited.isEmpty, "inherited from this process: \(inherited) (all: \(held))")
            let standard = (0...2).map {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/fd/\($0)")
            }
            #expect(standard == ["/dev/null", "/dev/null", "/dev/null"], "\(held)")
        }
    }

    @Test("a child run to completion does not inherit a descriptor left without close-on-exec")
    func runChildInheritsNoDescriptor() async throws {
        try await Self.withInheritableFile { path in
            let output = try await ChildProcess.run("/bin/ls", ["-l", "/proc/self/fd/"])
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout.contains("/dev/null") || output.stdout.contains("pipe:"), "\(output.stdout)")
            #expect(!output.stdout.contains(path), "\(output.stdout)")
        }
    }

    @Test("a path that is not there is an error, not a silent failure")
    func missing() async {
        await #expect(throws: (any Error).self) {
            _ = try await ChildProcess.run("/nonexistent/tool", [])
        }
        #expect(throws: (any Error).self) {
            _ = try ChildProcess.spawn("/nonexistent/tool", [])
        }
    }
}
