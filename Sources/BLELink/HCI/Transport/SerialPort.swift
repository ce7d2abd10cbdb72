import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Opens a UART-attached controller (`h4:/dev/ttyAMA0,115200`): raw mode, 8N1, the given baud
/// rate and RTS/CTS hardware flow control, which the H4 transport requires (Core Specification
/// Vol 4 Part A §1). An advisory lock keeps two gateways off one port.
///
/// Loading a controller's firmware or changing its baud rate with vendor commands (as
/// `btattach`/`hciattach` do for some chips) is not done here: the controller must already
/// speak HCI at this rate.
enum SerialPort {
    static func open(path: String, baudRate: Int) throws(HCIHostError) -> DescriptorByteStream {
        let name = BLETransportSetting.h4Serial(path: path, baudRate: baudRate).description
        guard let speed = speed(baudRate) else { throw .transport("\(name): unsupported baud rate \(baudRate)") }
        let fd = Glibc.open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .transport(failure(name, path: path, call: "open", code: errno)) }
        do throws(HCIHostError) {
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                throw .transport(failure(name, path: path, call: "flock", code: errno))
            }
            var options = termios()
            guard tcgetattr(fd, &options) == 0 else {
                throw .transport(failure(name, path: path, call: "tcgetattr", code: errno))
            }
            cfmakeraw(&options)
            options.c_cflag |= tcflag_t(CLOCAL | CREAD) | tcflag_t(CRTSCTS)
            options.c_cflag &= ~tcflag_t(CSTOPB | PARENB)
            guard cfsetispeed(&options, speed) == 0, cfsetospeed(&options, speed) == 0,
                tcsetattr(fd, TCSANOW, &options) == 0
            else { throw .transport(failure(name, path: path, call: "tcsetattr", code: errno)) }
            _ = tcflush(fd, TCIOFLUSH)
            return try DescriptorByteStream(adopting: fd, name: name)
        } catch {
            close(fd)
            throw error
        }
    }

    /// One line for a failed call, with the fix for the usual causes.
    static func failure(_ name: String, path: String, call: String, code: Int32) -> String {
        switch code {
        case ENOENT, ENODEV, ENXIO:
            "\(name): no such device \(path): check the path (ls /dev/tty*) and that the UART is enabled"
        case EACCES, EPERM:
            "\(name): permission denied opening \(path): add the gateway's user to the dialout group"
        case EBUSY, EWOULDBLOCK:
            "\(name): \(path) is busy: another program (hciattach, btattach, bluetoothd, a second gateway) uses it"
        case ENOTTY, EINVAL:
            "\(name): \(path) is not a serial port (\(call) failed)"
        default:
            "\(name): \(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }

    private static func speed(_ rate: Int) -> speed_t? {
        let speeds: [Int: Int32] = [
            9_600: B9600, 19_200: B19200, 38_400: B38400, 57_600: B57600, 115_200: B115200, 230_400: B230400,
            460_800: B460800, 500_000: B500000, 576_000: B576000, 921_600: B921600, 1_000_000: B1000000,
            1_152_000: B1152000, 1_500_000: B1500000, 2_000_000: B2000000, 2_500_000: B2500000,
            3_000_000: B3000000, 3_500_000: B3500000, 4_000_000: B4000000,
        ]
        return speeds[rate].map { speed_t($0) }
    }
}
