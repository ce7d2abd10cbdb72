import TuyaCore
import TuyaWire

/// DP writes, queries and reports (protocol/TUYA.md §1.6, §1.8). Values are applied by
/// the Wi-Fi simulator's `SimulatedDevice`, handed each write as the protocol-5 command
/// a Wi-Fi module would receive (already decrypted, as the LAN simulator hands it), so
/// both radios share one model of the product.
extension SimulatedBLEDevice {
    /// 0x0002: a v3 KLV list; answers 1 byte (0 ok, 1 nothing acceptable), then reports.
    mutating func writeV3(_ frame: BLECommandFrame, flag: BLESecurityFlag) -> [Action] {
        guard let list = try? BLEDataPointList(bytes: frame.data, format: .v3) else {
            statistics.framesRejected += 1
            return []
        }
        let (accepted, changed) = apply(list.dataPoints)
        let reply = send(.dpWriteV3, ackSN: frame.sn, data: [accepted ? 0 : 1], flag: flag)
        return reply + reports(from: changed)
    }

    /// 0x0027: `00 ‖ sn ‖ KLV v4`; answers `00 ‖ sn ‖ status`, then reports.
    mutating func writeV4(_ frame: BLECommandFrame, flag: BLESecurityFlag) -> [Action] {
        guard let write = try? BLEDataPointWriteV4(bytes: frame.data) else {
            statistics.framesRejected += 1
            return []
        }
        let (accepted, changed) = apply(write.dataPoints)
        let response = BLEDataPointWriteV4Response(sn: write.sn, status: accepted ? 0 : 1)
        let reply = send(.dpWriteV4, ackSN: frame.sn, data: response.encoded, flag: flag)
        return reply + reports(from: changed)
    }

    /// Hands the DPs the profile knows to the application; true when it took any.
    private mutating func apply(_ dataPoints: [BLEDataPoint]) -> (Bool, [SimulatedDevice.Action]) {
        var values: DataPoints = [:]
        for dataPoint in dataPoints {
            guard let spec = profile.dataPoint(dataPoint.id), let value = try? dataPoint.value(spec: spec) else {
                continue
            }
            values[dataPoint.id] = value
        }
        guard !values.isEmpty else { return (false, []) }
        let before = application.statistics.commandsApplied
        let actions = application.receive(
            envelope: .command(dps: DataPointJSON.encode(values)), at: application.now)
        let accepted = application.statistics.commandsApplied > before
        if accepted { statistics.writesApplied += 1 }
        return (accepted, actions)
    }

    /// BLE reports for what the application published; nothing while not paired (the
    /// SDK only reports to a bound, connected central).
    mutating func reports(from actions: [SimulatedDevice.Action]) -> [Action] {
        actions.flatMap { action -> [Action] in
            guard case .publish(let report) = action else { return [] }
            return reports(of: report.dataPoints.keys.sorted())
        }
    }

    /// One report frame carrying the current values of `ids`.
    mutating func reports(of ids: [DataPointID]) -> [Action] {
        guard isPaired, !ids.isEmpty else { return [] }
        var dataPoints: [BLEDataPoint] = []
        for id in ids {
            guard let spec = profile.dataPoint(id), let value = state[id],
                let dataPoint = try? BLEDataPoint(value, spec: spec)
            else { continue }
            dataPoints.append(dataPoint)
        }
        guard !dataPoints.isEmpty else { return [] }
        let time: BLEReportTime? =
            options.reportsWithTime
            ? .milliseconds((options.unixEpoch + application.now.components.seconds) * 1000) : nil
        let command: BLECommand
        let body: [UInt8]?
        if identity.protocolVersion >= 4 {
            let report = BLEDataPointReportV4(
                sn: UInt32(statistics.reportsSent + 1), time: time, dataPoints: dataPoints)
            command = report.command
            body = try? report.encoded()
        } else {
            let report = BLEDataPointReportV3(time: time, dataPoints: dataPoints)
            command = report.command
            body = try? report.encoded()
        }
        guard let body else { return [] }
        statistics.reportsSent += 1
        return send(command, data: body, flag: keys.sessionFlag)
    }
}
