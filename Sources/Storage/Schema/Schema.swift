import GRDB

/// The numbered migrations of the state database.
///
/// Each migration runs in its own transaction and sets `PRAGMA user_version` to its number,
/// so a file from a newer binary is recognised (and refused) even before GRDB's migration
/// table is read. Migrations are append-only: never edit one that has shipped.
enum Schema {
    /// "Youl": marks a SQLite file as a youll-devices database, so restore refuses others.
    static let applicationID: Int32 = 0x596F_756C

    static let migrations: [(identifier: String, apply: @Sendable (Database) throws -> Void)] = [
        ("v1-devices", v1Devices),
        ("v2-pairing-candidates", v2PairingCandidates),
        ("v3-event-log", v3EventLog),
        ("v4-ble-identities", v4BLEIdentities),
        ("v5-timer-sessions", v5TimerSessions),
        ("v6-maintenance", v6Maintenance),
        ("v7-lan-endpoints", v7LANEndpoints),
        ("v8-session-elapsed-at", v8SessionElapsedAt),
    ]

    /// The newest schema version this binary knows.
    static var knownVersion: Int { migrations.count }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for (number, migration) in migrations.enumerated() {
            migrator.registerMigration(migration.identifier) { db in
                try migration.apply(db)
                try db.execute(sql: "PRAGMA user_version = \(number + 1)")
            }
        }
        return migrator
    }

    /// The schema version a database claims: its `user_version`, or the number of applied
    /// migrations when an unknown migration was applied by a newer binary.
    static func version(of db: Database) throws -> (found: Int, superseded: Bool) {
        let userVersion = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
        let superseded = try db.tableExists("grdb_migrations") && migrator.hasBeenSuperseded(db)
        let applied = try db.tableExists("grdb_migrations") ? migrator.appliedIdentifiers(db).count : 0
        return (max(userVersion, applied), superseded)
    }

    private static func v1Devices(_ db: Database) throws {
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        try db.execute(
            sql: """
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL UNIQUE,
                    profile_id TEXT NOT NULL,
                    category TEXT NOT NULL,
                    transport TEXT NOT NULL,
                    product_id TEXT,
                    created_at DATETIME NOT NULL
                );
                CREATE TABLE secrets (
                    device_id TEXT PRIMARY KEY NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                    local_key TEXT NOT NULL
                );
                CREATE TABLE device_state (
                    device_id TEXT PRIMARY KEY NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                    desired TEXT NOT NULL DEFAULT '{}',
                    desired_at DATETIME,
                    confirmed TEXT NOT NULL DEFAULT '{}',
                    confirmed_at DATETIME
                );
                """)
    }

    private static func v2PairingCandidates(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE pairing_candidates (
                    dev_id TEXT PRIMARY KEY NOT NULL,
                    first_seen DATETIME NOT NULL,
                    last_seen DATETIME NOT NULL,
                    frames INTEGER NOT NULL
                );
                CREATE INDEX pairing_candidates_last_seen ON pairing_candidates(last_seen);
                """)
    }

    private static func v3EventLog(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at DATETIME NOT NULL,
                    kind TEXT NOT NULL,
                    device_id TEXT,
                    detail TEXT NOT NULL
                );
                """)
    }

    /// Where a BLE device is and the uuid its pair request carries; a row only for BLE devices.
    private static func v4BLEIdentities(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE ble_identities (
                    device_id TEXT PRIMARY KEY NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                    address TEXT NOT NULL,
                    random_address INTEGER NOT NULL,
                    uuid TEXT NOT NULL
                );
                """)
    }

    /// Where a LAN device is (its IP, re-resolved from broadcasts), the protocol version it
    /// speaks and the gateway's 3.5 source id for it; a row only for LAN devices.
    private static func v7LANEndpoints(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE lan_endpoints (
                    device_id TEXT PRIMARY KEY NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
                    ip TEXT NOT NULL,
                    version TEXT NOT NULL,
                    source_id INTEGER NOT NULL
                );
                """)
    }

    /// When a session's `elapsed_ms` was true (for a paused session, when its pause began): a
    /// restart resumes a running session where it is now, and counts a pause from when it
    /// began. NULL in rows saved before it.
    private static func v8SessionElapsedAt(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE sessions ADD COLUMN elapsed_at DATETIME")
    }

    /// Timer sessions, each session's cue log, and badges earned (each stored once).
    private static func v5TimerSessions(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY NOT NULL,
                    preset TEXT NOT NULL,
                    state TEXT NOT NULL,
                    started_at DATETIME NOT NULL,
                    ended_at DATETIME,
                    elapsed_ms INTEGER NOT NULL,
                    ending_started_ms INTEGER,
                    devices TEXT NOT NULL,
                    detail TEXT NOT NULL
                );
                CREATE INDEX sessions_by_state ON sessions(state, started_at);
                CREATE TABLE session_cues (
                    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                    cue_index INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    device_id TEXT,
                    planned_ms INTEGER NOT NULL,
                    actual_ms INTEGER NOT NULL,
                    outcome TEXT NOT NULL,
                    PRIMARY KEY (session_id, cue_index)
                );
                CREATE TABLE badges (
                    badge TEXT PRIMARY KEY NOT NULL,
                    earned_at DATETIME NOT NULL
                );
                """)
    }

    /// Maintenance reminders: each reminder's state (the scheduler's JSON, so a restart
    /// neither forgets a due reminder nor repeats its alert), their transitions with times,
    /// the latest usage snapshot, and the webhook's durable outbox (one row per alert id).
    private static func v6Maintenance(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE maintenance_reminders (
                    device_id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    status TEXT NOT NULL,
                    state TEXT NOT NULL,
                    updated_at DATETIME NOT NULL,
                    PRIMARY KEY (device_id, type)
                );
                CREATE TABLE maintenance_transitions (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    device_id TEXT NOT NULL,
                    type TEXT NOT NULL,
                    from_status TEXT NOT NULL,
                    to_status TEXT NOT NULL,
                    at DATETIME NOT NULL,
                    cause TEXT NOT NULL
                );
                CREATE INDEX maintenance_transitions_by_reminder ON maintenance_transitions(device_id, type, at);
                CREATE TABLE maintenance_usage (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    taken_at DATETIME NOT NULL,
                    snapshot TEXT NOT NULL
                );
                CREATE TABLE alert_outbox (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    payload TEXT NOT NULL,
                    queued_at DATETIME NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    delivered_at DATETIME
                );
                CREATE INDEX alert_outbox_pending ON alert_outbox(delivered_at, seq);
                """)
    }
}
