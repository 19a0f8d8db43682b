import LodestoneSources

// The wire messages `lodestone run --json` writes first and once a second, built from the engine's own values. Their
// memberwise initializers are internal to this target (Messages.swift), so these are how the command line's jobs
// (LodestoneCLI) build them. Each delegates to the memberwise initializer.

extension Wire.Version {
    /// The first message of a stream: this release (`Lodestone.version`) and `Wire.protocolVersion`.
    public static var current: Wire.Version { Wire.Version(release: Lodestone.version) }
}

extension Wire.Board {
    /// The board being run: its name and file, each source's id, label and rate, and for a simulated board its
    /// scenario and seed (`nil` otherwise).
    public init(board: BoardDescription, sources: [any SensorSource], scenario: String?, seed: UInt64?) {
        self.init(name: board.name, path: board.path, sensors: sources.map { Sensor(id: $0.id, label: $0.label, rateHz: $0.rateHz) },
                  scenario: scenario, seed: seed)
    }
}

extension Wire.Status {
    /// The status at `tS` (s, engine time): each source's health (`ok`, `starting`, `degraded` with the last error as
    /// its message), measured rate (Hz, to 0.1), samples and failures; `degraded` lists the degraded ones.
    public init(tS: Double, statuses: [Engine.SourceStatus], truth: Truth?, plan: Wire.PlanSummary?) {
        let sensors = statuses.map { s -> Sensor in
            var message: String?
            let health: String
            switch s.health {
            case .ok: health = "ok"
            case .starting: health = "starting"
            case .degraded(let m): health = "degraded"; message = m
            }
            return Sensor(id: s.id, health: health, message: message, rateHz: (s.measuredRateHz * 10).rounded() / 10,
                          samples: s.samples, failures: s.failures)
        }
        self.init(tS: tS, sensors: sensors, degraded: sensors.filter { $0.health == "degraded" }.map(\.id), truth: truth, plan: plan)
    }
}
