import GRDB

extension Database {
    /// Deletes all but the newest `limit` rows of `table` (by its increasing `key`) among those
    /// matching `filter` (SQL, or nil for every row): how the tables that grow with every event,
    /// snooze or delivered alert stay bounded. Table, key and filter are this module's own
    /// constants, never input.
    func keepNewest(_ limit: Int, in table: String, by key: String, where filter: String? = nil) throws {
        let condition = filter.map { "\($0) AND " } ?? ""
        let newest = filter.map { " WHERE \($0)" } ?? ""
        try execute(
            sql: """
                DELETE FROM \(table) WHERE \(condition)\(key) <= (
                    SELECT \(key) FROM \(table)\(newest) ORDER BY \(key) DESC LIMIT 1 OFFSET ?)
                """,
            arguments: [limit])
    }
}
