import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A real `/usr/sbin/mosquitto` on 127.0.0.1 and a free port, configured in a temp directory,
/// with optional password file and TLS files. `stop()` (also run by `deinit`) kills it; `start()`
/// again reuses the port, which is how reconnect tests restart "the same broker".
final class TestBroker {
  struct Credentials {
    var username: String
    var password: String
  }

  struct TLSFiles {
    var caFile: String
    var certFile: String
    var keyFile: String
  }

  let port: Int
  let directory: URL
  private let credentials: Credentials?
  private let tls: TLSFiles?
  private var process: Process?

  init(credentials: Credentials? = nil, tls: TLSFiles? = nil) throws {
    port = try Self.freeLoopbackPort()
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "youll-broker-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    self.credentials = credentials
    self.tls = tls
    try writeConfiguration()
    try start()
  }

  deinit {
    stop()
    try? FileManager.default.removeItem(at: directory)
  }

  var configPath: String { directory.appendingPathComponent("mosquitto.conf").path }

  /// Launches the broker and returns once it accepts TCP connections.
  func start() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
    process.arguments = ["-c", configPath]
    let log = directory.appendingPathComponent("broker.log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    process.standardOutput = handle
    process.standardError = handle
    try process.run()
    self.process = process
    guard Self.waitUntilAccepting(port: port, attempts: 200) else {
      stop()
      let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      throw BrokerFailure(message: "mosquitto did not start on port \(port): \(text)")
    }
  }

  /// Kills the broker (SIGKILL: no goodbye to clients, as in a crash) and waits for the exit.
  func stop() {
    guard let process, process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    self.process = nil
  }

  /// SIGSTOP / SIGCONT: the broker keeps its sockets but answers nothing meanwhile.
  func pause() {
    if let process { kill(process.processIdentifier, SIGSTOP) }
  }

  func resume() {
    if let process { kill(process.processIdentifier, SIGCONT) }
  }

  private func writeConfiguration() throws {
    var lines = [
      "listener \(port) 127.0.0.1",
      "set_tcp_nodelay true",
      "persistence false",
      "log_dest stderr",
      "user root",
    ]
    if let credentials {
      let file = directory.appendingPathComponent("passwords").path
      try Self.run(
        "/usr/bin/mosquitto_passwd", ["-b", "-c", file, credentials.username, credentials.password])
      lines += ["allow_anonymous false", "password_file \(file)"]
    } else {
      lines.append("allow_anonymous true")
    }
    if let tls {
      lines += ["cafile \(tls.caFile)", "certfile \(tls.certFile)", "keyfile \(tls.keyFile)"]
    }
    try (lines.joined(separator: "\n") + "\n").write(
      toFile: configPath, atomically: true, encoding: .utf8)
  }

  static func run(_ tool: String, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw BrokerFailure(
        message: "\(tool) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
    }
  }

  /// Binds port 0 on 127.0.0.1, reads the port the kernel chose, and closes the socket.
  static func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BrokerFailure(message: "socket: errno \(errno)") }
    defer { close(fd) }
    var address = loopback(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else { throw BrokerFailure(message: "bind: errno \(errno)") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Retries a TCP connect, waiting 10 ms between attempts in a blocking `poll` with no
  /// descriptors (the only wait these tests use), until the broker accepts.
  static func waitUntilAccepting(port: Int, attempts: Int) -> Bool {
    for _ in 0..<attempts {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = loopback(port: port)
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      close(fd)
      if connected == 0 { return true }
      _ = poll(nil, 0, 10)
    }
    return false
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return address
  }
}

struct BrokerFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}
