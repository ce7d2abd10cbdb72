#if canImport(Glibc)
    import Glibc
#endif

/// A UDP socket bound on loopback without SO_REUSEADDR, as a program that takes a port for
/// itself does (a tinytuya scan, tuya-local): nobody else can bind that port.
public struct HeldUDPPort: Sendable {
    public let descriptor: Int32
    public let port: Int

    public struct CannotBind: Error, CustomStringConvertible {
        public var description: String { "cannot bind a UDP port on 127.0.0.1" }
    }

    public init() throws {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        guard socketDescriptor >= 0, bound == 0, named == 0 else { throw CannotBind() }
        descriptor = socketDescriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    public func close() { _ = Glibc.close(descriptor) }
}
