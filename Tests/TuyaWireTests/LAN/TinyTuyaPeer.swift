import Foundation
import LocalBroker
import YoullTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// tinytuya (the private venv's 1.20.0) running `Tests/Python/tinytuya_codec.py`: one
/// JSON request per line in, one answer per line out. Real part: a python3 child process,
/// started with `posix_spawn` and spoken to over two pipes (Foundation's `Process` was seen
/// to crash on interrupted reads while other tests spawned children; see CLIRunner).
final class TinyTuyaPeer {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let pid: pid_t
    private let toChild: Int32
    private let fromChild: Int32
    private var buffered: [UInt8] = []

    init(python: String) throws {
        var input: [Int32] = [-1, -1]
        var output: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        // Close-on-exec, so children of tests running beside this one do not inherit our
        // ends; deinit also ends the child with SIGTERM in case one slipped through.
        for fd in input + output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        for fd in input + output { posix_spawn_file_actions_addclose(&actions, fd) }

        var argv: [UnsafeMutablePointer<CChar>?] =
            ([python, PythonTools.script("tinytuya_codec.py")] as [String]).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, python, &actions, nil, &argv, environ)
        close(input[0])
        close(output[1])
        guard status == 0 else {
            close(input[1])
            close(output[0])
            throw Failure(description: "cannot start \(python): \(String(cString: strerror(status)))")
        }
        pid = child
        toChild = input[1]
        fromChild = output[0]
    }

    deinit {
        close(toChild)
        close(fromChild)
        _ = kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }

    /// Sends one request and returns the answer; an answer with "error" throws it.
    func call(_ request: [String: Any]) throws -> [String: Any] {
        var line = [UInt8](try JSONSerialization.data(withJSONObject: request))
        line.append(0x0A)
        var written = 0
        while written < line.count {
            let count = line[written...].withUnsafeBytes { write(toChild, $0.baseAddress, $0.count) }
            if count < 0 {
                guard errno == EINTR else { throw Failure(description: "write to tinytuya_codec.py: errno \(errno)") }
                continue
            }
            written += count
        }
        while !buffered.contains(0x0A) {
            let chunk = Self.read(fromChild)
            guard !chunk.isEmpty else { throw Failure(description: "tinytuya_codec.py exited") }
            buffered += chunk
        }
        let end = buffered.firstIndex(of: 0x0A) ?? buffered.endIndex
        let answerLine = Data(buffered[..<end])
        buffered.removeSubrange(...end)
        guard let answer = try JSONSerialization.jsonObject(with: answerLine) as? [String: Any] else {
            throw Failure(description: "tinytuya_codec.py answered with something other than an object")
        }
        if let error = answer["error"] as? String { throw Failure(description: "tinytuya: \(error)") }
        return answer
    }

    /// One read from the child's stdout (a blocking read: the peer is used from one test);
    /// empty at its end.
    private static func read(_ fd: Int32) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            return count > 0 ? Array(buffer[0..<count]) : []
        }
    }

    /// The answer's field as bytes from hex.
    func bytes(_ answer: [String: Any], _ field: String) throws -> [UInt8] {
        guard let text = answer[field] as? String else { throw Failure(description: "no \(field) in \(answer)") }
        return hexBytes(text)
    }
}

func hexString(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { byte in
        let digits = String(byte, radix: 16)
        return digits.count == 1 ? "0" + digits : digits
    }.joined()

}
