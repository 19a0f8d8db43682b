/// The store's schema: an ordered list of migrations, migration n taking the database from `PRAGMA user_version`
/// n − 1 to n. Each is applied in its own transaction together with the new `user_version`, so a crash leaves the file
/// at the old version or the new one, never between. A migration, once released, is never edited: a change is a new
/// migration appended here.
enum Schema {
    /// The migrations, in order; `migrations[n - 1]` makes version n.
    static let migrations: [String] = [version1, version2]

    /// The version this build writes.
    static var currentVersion: Int { migrations.count }

    /// Version 1 (issue 16, item 1): monitors, their conditions and states, and the queue of unacknowledged events.
    ///
    /// - `monitors`: one row per monitor, named by its client's identity and the monitor's name. `next_event_id` is the
    ///   id the monitor's next event will carry: it only grows, in the same transaction as each event, so an id is
    ///   never reused, even for an event already acknowledged and deleted, nor after a restart.
    ///   `acknowledged_through_id` is the highest id the client acknowledged (0: none).
    /// - `conditions`: the regions (centre in degrees WGS84, radius m).
    /// - `condition_states`: each condition's state, the time of its last change (session time s, as
    ///   `MonitorConditionRecord.changedAtS`) and the location that caused it (`Location` as JSON); removed with its
    ///   condition.
    /// - `events`: the queue; an event stays until its client acknowledges it (then it is deleted: the queue holds what
    ///   is still owed). Events outlive their condition's removal (the client is still owed them) but not their monitor.
    static let version1 = """
        CREATE TABLE monitors (
            id INTEGER PRIMARY KEY,
            client TEXT NOT NULL,
            name TEXT NOT NULL,
            next_event_id INTEGER NOT NULL DEFAULT 1 CHECK (next_event_id >= 1),
            acknowledged_through_id INTEGER NOT NULL DEFAULT 0 CHECK (acknowledged_through_id >= 0),
            UNIQUE (client, name)
        );
        CREATE TABLE conditions (
            monitor_id INTEGER NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
            region_id TEXT NOT NULL,
            latitude_deg REAL NOT NULL CHECK (latitude_deg BETWEEN -90 AND 90),
            longitude_deg REAL NOT NULL CHECK (longitude_deg BETWEEN -180 AND 180),
            radius_m REAL NOT NULL CHECK (radius_m > 0),
            PRIMARY KEY (monitor_id, region_id)
        ) WITHOUT ROWID;
        CREATE TABLE condition_states (
            monitor_id INTEGER NOT NULL,
            region_id TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('satisfied', 'unsatisfied', 'unknown')),
            changed_at_s REAL,
            location_json TEXT,
            PRIMARY KEY (monitor_id, region_id),
            FOREIGN KEY (monitor_id, region_id) REFERENCES conditions (monitor_id, region_id) ON DELETE CASCADE
        ) WITHOUT ROWID;
        CREATE TABLE events (
            monitor_id INTEGER NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
            id INTEGER NOT NULL CHECK (id >= 1),
            region_id TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('satisfied', 'unsatisfied', 'unknown')),
            previous_state TEXT NOT NULL CHECK (previous_state IN ('satisfied', 'unsatisfied', 'unknown')),
            time_s REAL NOT NULL,
            location_json TEXT NOT NULL,
            PRIMARY KEY (monitor_id, id)
        ) WITHOUT ROWID;
        """

    /// Version 2 (issue 16, item 5): the motion history, 7 days kept.
    ///
    /// - `pedometer`: what the pedometer counted in each interval [start_s, end_s) (Unix time, s): steps, distance (m),
    ///   floors, time spent stepping (s). Intervals do not overlap and last at most
    ///   `MonitorStore.maximumPedometerIntervalS`, so a range query reads the primary key from `from − that` on.
    /// - `activities`: one row per change of activity, from `start_s` (Unix time, s) until the next row's.
    static let version2 = """
        CREATE TABLE pedometer (
            start_s REAL NOT NULL PRIMARY KEY,
            end_s REAL NOT NULL CHECK (end_s > start_s),
            steps INTEGER NOT NULL CHECK (steps >= 0),
            distance_m REAL NOT NULL CHECK (distance_m >= 0),
            floors_ascended INTEGER NOT NULL CHECK (floors_ascended >= 0),
            floors_descended INTEGER NOT NULL CHECK (floors_descended >= 0),
            active_s REAL NOT NULL CHECK (active_s >= 0)
        ) WITHOUT ROWID;
        CREATE TABLE activities (
            start_s REAL NOT NULL PRIMARY KEY,
            kind TEXT NOT NULL,
            confidence TEXT NOT NULL
        ) WITHOUT ROWID;
        """
}
