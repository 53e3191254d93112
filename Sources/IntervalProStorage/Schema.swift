import GRDB

/// The database schema, as a list of migrations.
///
/// A migration that has shipped never changes: databases in the field have already run
/// it, and GRDB records by name which ones ran. A new column or table is a new migration
/// appended at the end, named "vN-what-it-does".
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-sessions", migrate: version1)
        migrator.registerMigration("v2-uploads", migrate: version2)
        migrator.registerMigration("v3-readiness", migrate: version3)
        migrator.registerMigration("v4-readiness-uploads", migrate: version4)
        migrator.registerMigration("v5-sample-rr", migrate: version5)
        migrator.registerMigration("v6-imported-activities", migrate: version6)
        migrator.registerMigration("v7-readiness-local-time", migrate: version7)
        migrator.registerMigration("v8-imported-activity-damaged", migrate: version8)
        return migrator
    }

    /// Sessions, their devices, scored steps, 1 Hz samples, raw notifications and the
    /// runner's controls (pause, next, finish), so that a session replays exactly.
    private static func version1(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE session (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    started_at TEXT NOT NULL,
                    plan_name TEXT NOT NULL,
                    plan_json TEXT NOT NULL,
                    source TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
                    owner TEXT,
                    last_time_us INTEGER NOT NULL DEFAULT 0,
                    completed INTEGER,
                    duration_s REAL,
                    in_zone_pct REAL,
                    avg_cadence_spm REAL,
                    avg_work_cadence_spm REAL,
                    avg_hr_bpm REAL,
                    max_hr_bpm INTEGER,
                    distance_m REAL
                );
                CREATE INDEX session_by_start ON session (started_at);
                CREATE INDEX session_by_status ON session (status);

                CREATE TABLE device (
                    session_id INTEGER NOT NULL REFERENCES session (id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    device_id TEXT NOT NULL,
                    name TEXT,
                    cadence_unit TEXT,
                    PRIMARY KEY (session_id, position)
                ) WITHOUT ROWID;

                CREATE TABLE step_result (
                    session_id INTEGER NOT NULL REFERENCES session (id) ON DELETE CASCADE,
                    step_index INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    label TEXT,
                    repetition TEXT,
                    target_spm REAL,
                    low_spm REAL,
                    high_spm REAL,
                    duration_us INTEGER NOT NULL,
                    in_zone_us INTEGER NOT NULL,
                    below_us INTEGER NOT NULL,
                    above_us INTEGER NOT NULL,
                    no_signal_us INTEGER NOT NULL,
                    cadence_weighted INTEGER NOT NULL,
                    cadence_time_us INTEGER NOT NULL,
                    heart_rate_weighted INTEGER NOT NULL,
                    heart_rate_time_us INTEGER NOT NULL,
                    max_hr_bpm INTEGER,
                    distance_m REAL,
                    ended_by TEXT NOT NULL,
                    PRIMARY KEY (session_id, step_index)
                ) WITHOUT ROWID;

                CREATE TABLE sample (
                    session_id INTEGER NOT NULL REFERENCES session (id) ON DELETE CASCADE,
                    second INTEGER NOT NULL,
                    step_index INTEGER,
                    raw_cadence INTEGER,
                    cadence_spm INTEGER,
                    heart_rate_bpm INTEGER,
                    speed_mps REAL,
                    distance_m REAL,
                    zone_status TEXT NOT NULL,
                    PRIMARY KEY (session_id, second)
                ) WITHOUT ROWID;

                CREATE TABLE notification (
                    session_id INTEGER NOT NULL REFERENCES session (id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    time_us INTEGER NOT NULL,
                    device TEXT NOT NULL,
                    characteristic TEXT,
                    value BLOB,
                    event TEXT,
                    PRIMARY KEY (session_id, seq)
                ) WITHOUT ROWID;

                CREATE TABLE control (
                    session_id INTEGER NOT NULL REFERENCES session (id) ON DELETE CASCADE,
                    seq INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    time_us INTEGER NOT NULL,
                    after_entries INTEGER NOT NULL,
                    PRIMARY KEY (session_id, seq)
                ) WITHOUT ROWID;
                """)
    }

    /// Where each session went: one row per session and service (intervals.icu, Strava).
    /// A row is written `pending` before the first attempt, so a session whose upload fails
    /// or is cut short stays queued; Strava's upload id is kept while it processes, so a
    /// retry asks about that upload instead of sending the file again.
    private static func version2(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE upload (
                    session_id INTEGER NOT NULL REFERENCES session (id) ON DELETE CASCADE,
                    service TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'done', 'rejected')),
                    remote_upload_id TEXT,
                    activity_id TEXT,
                    activity_url TEXT,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    updated_at TEXT NOT NULL,
                    PRIMARY KEY (session_id, service)
                ) WITHOUT ROWID;
                CREATE INDEX upload_by_status ON upload (status);
                """)
    }

    /// Morning readiness measurements: the figures as shown, and the RR intervals as the strap
    /// sent them (1/1024 s, one JSON array per stretch of skin contact), so that a later
    /// method can recompute them. `local_date` is the runner's day when it was taken: the
    /// baseline counts days, and the time zone may change later.
    private static func version3(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE readiness (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    taken_at TEXT NOT NULL,
                    local_date TEXT NOT NULL,
                    source TEXT NOT NULL,
                    device TEXT,
                    duration_s REAL NOT NULL,
                    method TEXT NOT NULL,
                    beats_received INTEGER NOT NULL,
                    artifacts_corrected INTEGER NOT NULL,
                    beats INTEGER NOT NULL,
                    mean_rr_ms REAL NOT NULL,
                    mean_hr_bpm REAL NOT NULL,
                    rmssd_ms REAL NOT NULL,
                    ln_rmssd REAL NOT NULL,
                    sdnn_ms REAL NOT NULL,
                    rr_segments TEXT NOT NULL
                );
                CREATE INDEX readiness_by_date ON readiness (local_date, taken_at);
                """)
    }

    /// Where each readiness measurement went (intervals.icu's wellness), as `upload` keeps it
    /// for sessions: a row `pending` before the first attempt, so a failure or a cut-off run
    /// leaves it to `upload --pending`.
    private static func version4(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE readiness_upload (
                    readiness_id INTEGER NOT NULL REFERENCES readiness (id) ON DELETE CASCADE,
                    service TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'rejected')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    updated_at TEXT NOT NULL,
                    PRIMARY KEY (readiness_id, service)
                ) WITHOUT ROWID;
                CREATE INDEX readiness_upload_by_status ON readiness_upload (status);
                """)
    }

    /// The RR intervals the heart-rate device sent in each second, as it sent them: uint16
    /// little-endian in 1/1024 s, oldest first; NULL when none came. Alpha 1 and the FIT
    /// export's `hrv` messages are computed from them.
    private static func version5(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE sample ADD COLUMN rr BLOB")
    }

    /// Where each imported run came from (`history import`): the watch's start time and what
    /// recorded it, one row per pair, so that importing the same activity again adds nothing;
    /// and the file it was read from. Deleting the session deletes its row, so that a deleted
    /// run can be imported again.
    private static func version6(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE imported_activity (
                    session_id INTEGER PRIMARY KEY REFERENCES session (id) ON DELETE CASCADE,
                    started_at TEXT NOT NULL,
                    device TEXT NOT NULL,
                    file TEXT NOT NULL,
                    UNIQUE (started_at, device)
                );
                """)
    }

    /// The runner's clock time when each readiness measurement ended ("07:02:41"), in the time
    /// zone of that moment, as `local_date` is: whether it was a morning's is the runner's
    /// clock then, not the zone the store is read in after travelling. NULL when the time of
    /// day is not known (a replayed file that does not say when it was measured). The
    /// measurements saved before take their clock time in the system's time zone now, as
    /// they were read until then.
    private static func version7(_ db: Database) throws {
        try db.execute(
            sql: """
                ALTER TABLE readiness ADD COLUMN local_time TEXT;
                UPDATE readiness SET local_time = strftime('%H:%M:%S', taken_at, 'localtime');
                """)
    }

    /// Whether an imported session was read from a damaged file (a FIT file whose CRC does not
    /// match, or cut off): an intact copy of the run, imported later, is the better one.
    private static func version8(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE imported_activity ADD COLUMN damaged INTEGER NOT NULL DEFAULT 0")
    }
}
