/// Who waits for the answer to a command the host sent.
enum HCICommandPurpose: Hashable, Sendable {
    case initialization(HCIInitializationStep)
    case scanParameters(operation: Int)
    case scanEnable(operation: Int, enable: Bool)
    case createConnection(operation: Int)
    case cancelConnection(operation: Int)
    case disconnect(handle: UInt16)
}

/// The steps of the start-up sequence, in order.
enum HCIInitializationStep: Hashable, Sendable {
    case reset, eventMask, leEventMask, readAddress, readSupportedCommands, readLEFeatures, readLEBufferSize
    case readBufferSize
}

/// HCI command flow control (Core Specification Vol 4 Part E §4.4): the controller says in each
/// Command Complete or Command Status how many commands it accepts now. This host keeps one
/// command outstanding at a time, which every controller accepts, and queues the others in order.
struct HCICommandFlow: Sendable {
    struct Entry: Hashable, Sendable {
        var packet: H4Packet
        var opcode: HCIOpcode
        var purpose: HCICommandPurpose
    }

    private var queue: [Entry] = []
    private(set) var outstanding: Entry?
    /// Until the first answer, one command may be sent (§4.4: a controller starts with 1).
    private var credits = 1
    /// Counts commands sent, so a timer armed for an earlier command is recognised as stale.
    private(set) var sequence = 0

    var queuedCount: Int { queue.count }

    /// Queues `command`; returns the entry to send now, if the flow allows.
    mutating func enqueue(_ command: some HCICommand, for purpose: HCICommandPurpose) -> Entry? {
        queue.append(Entry(packet: command.h4Packet, opcode: type(of: command).opcode, purpose: purpose))
        return next()
    }

    /// Reads a Command Complete or Status: `credits` is its Num_HCI_Command_Packets. Returns the
    /// purpose of the outstanding command when `opcode` answers it (nil for No Operation or a
    /// stray answer), and the next entry to send.
    mutating func answer(opcode: HCIOpcode, credits: UInt8) -> (purpose: HCICommandPurpose?, next: Entry?) {
        self.credits = Int(credits)
        var purpose: HCICommandPurpose?
        if let outstanding, outstanding.opcode == opcode {
            purpose = outstanding.purpose
            self.outstanding = nil
        }
        return (purpose, next())
    }

    /// Empties the queue and forgets the outstanding command (the host failed).
    mutating func removeAll() -> [Entry] {
        defer {
            queue = []
            outstanding = nil
        }
        return (outstanding.map { [$0] } ?? []) + queue
    }

    private mutating func next() -> Entry? {
        guard outstanding == nil, credits > 0, !queue.isEmpty else { return nil }
        let entry = queue.removeFirst()
        outstanding = entry
        sequence += 1
        return entry
    }
}
