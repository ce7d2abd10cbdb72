import BLELink

/// One AD structure's bytes: length, type, value.
func adStructure(_ type: UInt8, _ value: [UInt8]) -> [UInt8] {
    [UInt8(value.count + 1), type] + value
}

/// An HCI LE Advertising Report event packet with one report per entry, laid out as the
/// kernel reads it: 04 3E len 02 count, then per report type, address type, address
/// (least significant byte first), data length, data, RSSI.
func advertisingReportPacket(_ reports: [(type: UInt8, address: String, data: [UInt8], rssi: Int8)]) -> [UInt8] {
    var parameters: [UInt8] = [0x02, UInt8(reports.count)]
    for report in reports {
        parameters += [report.type, 0x00] + AdvertisingReport.addressBytes(report.address)!
        parameters += [UInt8(report.data.count)] + report.data + [UInt8(bitPattern: report.rssi)]
    }
    return [0x04, 0x3E, UInt8(parameters.count)] + parameters
}

/// An HCI LE Extended Advertising Report event packet with one report from a public address:
/// `properties` are the event-type bits (data status in bits 5–6), then PHYs, `sid`, TX power,
/// `rssi`, no periodic interval or direct address, and `data`.
func extendedReportPacket(
    address: String, properties: UInt16, data: [UInt8], rssi: Int8 = -60, sid: UInt8 = 0x01
) -> [UInt8] {
    var parameters: [UInt8] = [0x0D, 0x01, UInt8(properties & 0xFF), UInt8(properties >> 8), 0x00]
    parameters += AdvertisingReport.addressBytes(address)!
    parameters += [0x01, 0x00, sid, 0x7F, UInt8(bitPattern: rssi)] + [UInt8](repeating: 0, count: 9)
    parameters += [UInt8(data.count)] + data
    return [0x04, 0x3E, UInt8(parameters.count)] + parameters
}
