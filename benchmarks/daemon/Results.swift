import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// What the measured window says, computed once from what `LoadClients` recorded.
struct LoadResult {
    struct Latency {
        var count: Int
        var p50: Double
        var p99: Double
        var max: Double
    }
    struct Rates {
        var min: Double
        var median: Double
        var max: Double
    }
    /// Session time between consecutive updates of a subscription: median and max, s.
    struct Intervals {
        var medianS: Double
        var maxS: Double
    }

    let window: WindowRecord
    private var latencies: [Int: Latency] = [:]
    private var rates: [Int: Rates] = [:]
    private var intervalsByKind: [Int: Intervals] = [:]
    /// Clients that received no heading in the window, or no location update since they subscribed: a location stream
    /// sends its first update within 10 s (a location, or one saying it is unavailable), then may pause while the
    /// carrier rests, so a window can hold none.
    let silentClients: Int
    /// Clients cut off by the daemon, or that got an ERROR or ENDED, one line each.
    let troubledClients: [String]

    init(clients: [LoadConnection], window: WindowRecord, windowS: Double) {
        self.window = window
        func latency(_ values: [Double]) -> Latency {
            let sorted = values.sorted().map { $0 * 1000 }
            return Latency(
                count: sorted.count, p50: percentile(sorted, 0.50), p99: percentile(sorted, 0.99), max: sorted.last ?? .nan)
        }
        latencies[0] = latency(window.latencyS.flatMap { $0 })
        for kind in UpdateKind.allCases {
            let k = kind.rawValue
            latencies[k] = latency(window.latencyS[k])
            let perClient = clients.map { Double($0.windowCount[k]) / windowS }.sorted()
            rates[k] = Rates(min: perClient.first ?? .nan, median: percentile(perClient, 0.5), max: perClient.last ?? .nan)
            let spans = window.intervalsS[k].sorted()
            intervalsByKind[k] = Intervals(medianS: percentile(spans, 0.5), maxS: spans.last ?? .nan)
        }
        silentClients =
            clients.filter { c in
                c.windowCount[UpdateKind.heading.rawValue] == 0 || c.totalCount[UpdateKind.location.rawValue] == 0
            }.count
        troubledClients = clients.enumerated().compactMap { i, c in
            let all = (c.closedReason.map { [$0] } ?? []) + c.problems
            return all.isEmpty ? nil : "client \(i + 1): \(all.joined(separator: ", "))"
        }
    }

    /// `nil`: every update.
    func latencyMs(_ kind: UpdateKind?) -> Latency { latencies[kind?.rawValue ?? 0]! }
    func ratesHz(_ kind: UpdateKind) -> Rates { rates[kind.rawValue]! }
    func intervals(_ kind: UpdateKind) -> Intervals { intervalsByKind[kind.rawValue]! }
}

/// The nearest-rank percentile of sorted values (`nan` when empty).
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}

/// The session's pacing over the whole run, from the daemon's `stopped:` line (`ServeJob`).
struct Pacing {
    var steps = "?"
    var overruns = "?"
    var maxLatenessMs = "?"
    init(stopLine: String?) {
        // "stopped: 12345 steps, 0 began after the next step was due, the latest 1.2 ms late"
        guard let line = stopLine, let r = line.range(of: "stopped: ") else { return }
        let words = line[r.upperBound...].split(separator: " ")
        if words.count > 9 {
            steps = String(words[0])
            overruns = String(words[2])
            maxLatenessMs = String(words[words.count - 3])
        }
    }
}

/// The machine the numbers were measured on.
struct MachineDescription {
    var summary: String
    var dateUTC: String

    static func current() -> MachineDescription {
        let cpu =
            readProcFile("/proc/cpuinfo")?.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":").last.map { String($0.trimmingSpaces) } ?? "unknown CPU"
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let memory =
            readProcFile("/proc/meminfo")?.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }?
            .split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { "\($0 / 1024) MiB RAM" } ?? "?"
        var names = utsname()
        uname(&names)
        let kernel = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let load = readProcFile("/proc/loadavg")?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M UTC", &parts)
        return MachineDescription(
            summary: "\(cores) cores (\(cpu)), \(memory), Linux \(kernel); load average at the start \(load)",
            dateUTC: text(buffer))
    }
}

/// `results.md`.
struct Report {
    var date: String
    var machine: String
    var command: String
    var title: String
    var loadTable: [String]
    var idleTable: [String]
    var idleSeconds: Double
    var loadAverageAtEnd: String
    var failures: [String]
    var missedTargets: [String]
    var daemonLog: String?

    var markdown: String {
        """
        # Daemon load benchmark: results

        Measured \(date) on \(machine), with `\(command)` (from the repository root, after
        `swift build -c release --product lodestone`; `scripts/bench-daemon` does both). README.md in this folder says
        how each number is measured. The machine is shared with other builds: the load average at the end was
        \(loadAverageAtEnd).

        ## Load: \(title)

        \(loadTable.joined(separator: "\n"))

        ## The daemon's CPU with no client and with one idle client (\(fixed(idleSeconds, 0)) s each)

        \(idleTable.joined(separator: "\n"))

        Correctness: \(failures.isEmpty ? "every client got every update, in order; none was cut off." : "FAILED: " + failures.joined(separator: "; "))
        Targets: \(missedTargets.isEmpty ? "all met." : "missed: " + missedTargets.joined(separator: "; ") + ".")

        The daemon's last line: `\(daemonLog ?? "none")`

        """
    }
}

func fixed(_ x: Double, _ digits: Int) -> String {
    guard x.isFinite else { return "–" }
    var buffer = [CChar](repeating: 0, count: 64)
    _ = withVaList([x]) { vsnprintf(&buffer, buffer.count, "%.\(digits)f", $0) }
    return text(buffer)
}

/// A C string buffer's text, up to its terminating zero.
func text(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Bytes as MB (10⁶ bytes, as issue 15's target is stated), one decimal.
func megabytes(_ bytes: Int) -> String { fixed(Double(bytes) / 1e6, 1) }
