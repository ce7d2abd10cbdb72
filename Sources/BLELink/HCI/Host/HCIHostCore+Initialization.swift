/// Start-up: Reset, the event masks, then what the host needs to know: the public address, the
/// supported commands (for LE Read Buffer Size [v2]), the LE features (for extended scanning)
/// and the LE ACL buffers, falling back to the shared ACL buffers when LE has none of its own
/// (Core Specification Vol 4 Part E §4.1.1).
extension HCIHostCore {
    /// Begins initialization; `.ready` (or `.failed`) follows as the controller answers.
    public mutating func start() -> [Action] {
        guard phase == .idle else { return [] }
        phase = .initializing
        return issue(HCIResetCommand(), for: .initialization(.reset))
    }

    mutating func initializationStep(
        _ step: HCIInitializationStep, status: HCIErrorCode, _ parameters: ArraySlice<UInt8>
    ) -> [Action] {
        guard phase == .initializing else { return [] }
        do throws(HCIPacketError) {
            switch (step, status) {
            case (.reset, .success):
                return issue(HCISetEventMaskCommand.leHost, for: .initialization(.eventMask))
            case (.eventMask, .success):
                return issue(HCILESetEventMaskCommand.leHost, for: .initialization(.leEventMask))
            case (.leEventMask, .success):
                return issue(HCIReadBDAddrCommand(), for: .initialization(.readAddress))
            case (.readAddress, _):
                // Optional: a controller without a public address may refuse.
                if status == .success {
                    discovered.address = try HCIReadBDAddrCommand.decodeReturnParameters(parameters)
                }
                return issue(HCIReadLocalSupportedCommandsCommand(), for: .initialization(.readSupportedCommands))
            case (.readSupportedCommands, _):
                if status == .success {
                    let supported = try HCIReadLocalSupportedCommandsCommand.decodeReturnParameters(parameters)
                    discovered.supportsLEReadBufferSizeV2 = supported.leReadBufferSizeV2
                }
                return issue(HCILEReadLocalSupportedFeaturesCommand(), for: .initialization(.readLEFeatures))
            case (.readLEFeatures, .success):
                discovered.features = try HCILEReadLocalSupportedFeaturesCommand.decodeReturnParameters(parameters)
                return discovered.supportsLEReadBufferSizeV2
                    ? issue(HCILEReadBufferSizeV2Command(), for: .initialization(.readLEBufferSize))
                    : issue(HCILEReadBufferSizeCommand(), for: .initialization(.readLEBufferSize))
            case (.readLEBufferSize, .success):
                let buffers =
                    discovered.supportsLEReadBufferSizeV2
                    ? try HCILEReadBufferSizeV2Command.decodeReturnParameters(parameters)
                    : try HCILEReadBufferSizeCommand.decodeReturnParameters(parameters)
                guard buffers.dataPacketLength == 0 || buffers.totalPackets == 0 else { return becomeReady(buffers) }
                return issue(HCIReadBufferSizeCommand(), for: .initialization(.readBufferSize))
            case (.readBufferSize, .success):
                return becomeReady(try HCIReadBufferSizeCommand.decodeReturnParameters(parameters))
            default:
                return fail(.commandFailed(Self.opcode(of: step), status))
            }
        } catch {
            return fail(.malformed(error))
        }
    }

    private mutating func becomeReady(_ buffers: HCIBufferSize) -> [Action] {
        guard buffers.dataPacketLength > 0, buffers.totalPackets > 0 else {
            return fail(
                .malformed(
                    .invalidField(
                        packet: "buffer size return parameters", field: "ACL data packet length or count", value: 0)))
        }
        let info = HCIControllerInfo(address: discovered.address, aclBuffers: buffers, features: discovered.features)
        controller = info
        acl = ACLFlowControl(capacity: Int(buffers.totalPackets))
        phase = .ready
        return [.ready(info)]
    }

    private static func opcode(of step: HCIInitializationStep) -> HCIOpcode {
        switch step {
        case .reset: .reset
        case .eventMask: .setEventMask
        case .leEventMask: .leSetEventMask
        case .readAddress: .readBDAddr
        case .readSupportedCommands: .readLocalSupportedCommands
        case .readLEFeatures: .leReadLocalSupportedFeatures
        case .readLEBufferSize: .leReadBufferSize
        case .readBufferSize: .readBufferSize
        }
    }
}
