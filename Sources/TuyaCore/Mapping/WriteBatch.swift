/// One value for one data point, remembering which command field asked for it.
struct Write {
    var id: DataPointID
    var value: DPValue
    var field: String
}

/// Collects writes and rejects two fields asking different things of one DP
/// (on a layout L diffuser `power` and `mist` are the same switch).
struct WriteBatch {
    var profile: String
    private(set) var values: DataPoints = [:]
    private var fields: [DataPointID: String] = [:]

    init(profile: String) {
        self.profile = profile
    }

    mutating func put(_ write: Write) throws(MappingError) {
        if let existing = values[write.id], existing != write.value {
            throw .conflictingFields([fields[write.id] ?? "\(write.id)", write.field], profile: profile)
        }
        values[write.id] = write.value
        fields[write.id] = write.field
    }
}
