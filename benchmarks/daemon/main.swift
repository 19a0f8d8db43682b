// The daemon's load benchmark (issue 15): the real `lodestone serve` on the simulated board in real time, N clients
// of its native protocol each subscribed to location and heading, and what they get: delivery latency from sample to
// client, updates per client per second, missed or out-of-order updates, and the daemon's CPU and memory; then the
// daemon's CPU with no client and with one idle client. See README.md in this folder for what each number means.
//
//   scripts/bench-daemon [--clients 200] [--seconds 60] [--check] [--output benchmarks/daemon/results.md]
//   DaemonLoad --lodestone .build/release/lodestone [options]        (from the repository root)

#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import LodestoneService

// MARK: - Options

struct Options {
    var lodestonePath = ".build/release/lodestone"
    var boardPath = "boards/simulated.json"
    /// The walk: outdoors and moving throughout, so that locations and valid headings flow the whole run (the
    /// board file's `mixed-day` has rests and indoor stretches where a heading or location stream pauses).
    var scenario = "walk"
    var clients = 200
    var seconds = 60.0
    var warmupSeconds = 10.0
    var idleSeconds = 10.0
    var headingFilterDeg = 0.0
    /// The heading subscription's `rate_hz` (the issue's 10 Hz; the session's most is 20).
    var headingRateHz = 10.0
    /// Fail (exit 1) when an update was missed or out of order, a client got no update of a kind, was cut off, or got
    /// an ERROR or ENDED.
    var check = false
    /// Fail also when a target of issue 15 is missed (latency p99, RSS, idle CPU).
    var checkTargets = false
    var outputPath: String?

    static let usage = """
        usage: DaemonLoad [--lodestone PATH] [--board PATH] [--scenario NAME (walk)] [--clients N] [--seconds S]
                          [--warmup-seconds S] [--idle-seconds S] [--heading-filter-deg D] [--heading-rate-hz R (10)] [--check] [--check-targets]
                          [--output results.md]
        Run from the repository root (the default --lodestone and --board are relative to it).
        """

    init(_ arguments: [String]) {
        var a = arguments[...]
        func value(_ flag: String) -> String {
            guard let v = a.popFirst() else { fail("\(flag) needs a value\n\(Self.usage)") }
            return v
        }
        func number(_ flag: String, minimum: Double) -> Double {
            guard let x = Double(value(flag)), x.isFinite, x >= minimum else { fail("\(flag) needs a number ≥ \(minimum)") }
            return x
        }
        while let flag = a.popFirst() {
            switch flag {
            case "--lodestone": lodestonePath = value(flag)
            case "--board": boardPath = value(flag)
            case "--scenario": scenario = value(flag)
            case "--clients": clients = Int(number(flag, minimum: 1))
            case "--seconds": seconds = number(flag, minimum: 1)
            case "--warmup-seconds": warmupSeconds = number(flag, minimum: 0)
            case "--idle-seconds": idleSeconds = number(flag, minimum: 1)
            case "--heading-filter-deg": headingFilterDeg = number(flag, minimum: 0)
            case "--heading-rate-hz": headingRateHz = number(flag, minimum: 0.01)
            case "--check": check = true
            case "--check-targets": check = true; checkTargets = true
            case "--output": outputPath = value(flag)
            case "-h", "--help":
                print(Self.usage)
                exit(0)
            default: fail("unknown option \(flag)\n\(Self.usage)")
            }
        }
    }
}

/// Issue 15's targets on this 2-core machine.
enum Targets {
    static let latencyP99Ms = 5.0
    static let rssBytes = 30_000_000
    static let idleClientCPUPercent = 5.0
}

func fail(_ message: String) -> Never {
    var text = "DaemonLoad: \(message)\n"
    _ = text.withUTF8 { write(2, $0.baseAddress, $0.count) }
    exit(2)
}
func say(_ line: String) {
    print(line)
    fflush(nil) // every stream: the harness's progress shows as it goes, also through a pipe
}

// MARK: - The run

let options = Options(Array(CommandLine.arguments.dropFirst()))
let commandLine = CommandLine.arguments.dropFirst().joined(separator: " ")
guard access(options.lodestonePath, X_OK) == 0 else {
    fail("no executable at \(options.lodestonePath): build it (swift build -c release --product lodestone) or pass --lodestone")
}
guard access(options.boardPath, R_OK) == 0 else { fail("no board file at \(options.boardPath): run from the repository root") }

var template = Array("/tmp/lodestone-bench-XXXXXX".utf8CString)
guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { fail("mkdtemp: errno \(errno)") }
let directory = String(cString: made)
let socketPath = directory + "/lodestone.sock"
let policyPath = directory + "/policy.toml"
// Every client may see everything: the benchmark measures delivery, not the policy (the harness may run as any user).
let policy = """
    [default]
    location = "always"
    accuracy = "full"
    motion = true

    """
guard let policyFile = fopen(policyPath, "w"), fputs(policy, policyFile) >= 0, fclose(policyFile) == 0 else {
    fail("cannot write \(policyPath)")
}
_ = mkdir(directory + "/state", 0o755)

var serveArguments = [
    "serve", "--board", options.boardPath, "--socket", socketPath, "--gpsd-listen", "none", "--policy", policyPath,
    "--state-dir", directory + "/state", "--speed", "1"
]
serveArguments += ["--scenario", options.scenario]
let machine = MachineDescription.current()
say("DaemonLoad: \(machine.summary)")
say("DaemonLoad: starting \(options.lodestonePath) \(serveArguments.joined(separator: " "))")
let daemon: DaemonProcess
do {
    daemon = try DaemonProcess(executable: options.lodestonePath, arguments: serveArguments, logPath: directory + "/serve.log")
} catch {
    fail("\(error)")
}

/// Stops the daemon and ends the run with `message` when something prevents measuring.
@MainActor func abort(_ message: String) -> Never {
    daemon.stop(timeoutS: 10)
    fail(
        "\(message)\nthe daemon's log: \(daemon.logPath)\n\(daemon.log.split(separator: "\n").suffix(15).joined(separator: "\n"))"
    )
}

guard let ready = daemon.waitForLine(containing: "ready:", timeoutS: 120) else { abort("the daemon did not say it was ready") }
guard let originText = ready.split(separator: "CLOCK_MONOTONIC ").last?.split(separator: " ").first,
    ready.contains("CLOCK_MONOTONIC"), let originS = Double(originText)
else { abort("the daemon's ready line does not state its pacing origin (a lodestone older than this harness?): \(ready)") }
say("DaemonLoad: daemon \(daemon.pid) ready; session time 0 at CLOCK_MONOTONIC \(originS) s")

let clients = LoadClients(socketPath: socketPath, originS: originS, speed: 1)

/// The daemon's CPU over `seconds` while `clients` are pumped, % of one core.
@MainActor func measureCPU(seconds: Double) -> Double {
    guard let before = daemon.cpuTimeS() else { abort("cannot read /proc/\(daemon.pid)/stat") }
    let startS = Clock.nowS()
    clients.pump(untilS: startS + seconds)
    guard let after = daemon.cpuTimeS() else { abort("the daemon ended") }
    return 100 * (after - before) / (Clock.nowS() - startS)
}

struct IdlePhase {
    var name: String
    var cpuPercent: Double
    var rssBytes: Int
    var anonymousBytes: Int
}
var idlePhases: [IdlePhase] = []
@MainActor func idlePhase(_ name: String) {
    let cpu = measureCPU(seconds: options.idleSeconds)
    let memory = daemon.memory()
    let rss = memory?.rssBytes ?? 0
    idlePhases.append(IdlePhase(name: name, cpuPercent: cpu, rssBytes: rss, anonymousBytes: memory?.anonymousBytes ?? 0))
    say("DaemonLoad: \(name): daemon CPU \(fixed(cpu, 2)) % of a core, RSS \(megabytes(rss)) MB")
}

let hello = NativeProtocol.line(NativeProtocol.Hello(client: "DaemonLoad")).dropLast()
@MainActor func subscribeLine(_ kind: UpdateKind) -> String {
    let spec =
        switch kind {
        case .location: SubscriptionSpec(kind: .location)
        case .heading: SubscriptionSpec(kind: .heading, filterDeg: options.headingFilterDeg, rateHz: options.headingRateHz)
        }
    return String(NativeProtocol.line(NativeProtocol.Subscribe(id: kind.rawValue, spec: spec)).dropLast())
}

// 1. No client; 2. one client, nothing subscribed; 3. the same client with a location subscription at its default
//    demand. Each after a settling second (the scheduler re-plans at the session's next step).
clients.pump(untilS: Clock.nowS() + 2)
idlePhase("no client")
let idle: LoadConnection
do { idle = try clients.connect(sending: [String(hello)]) } catch { abort("\(error)") }
clients.pump(untilS: Clock.nowS() + 1)
idlePhase("one client, nothing subscribed")
clients.send(subscribeLine(.location), on: idle)
clients.pump(untilS: Clock.nowS() + 2)
idlePhase("one client, location at its default demand")
let idleProblems = idle.problems + (idle.closedReason.map { [$0] } ?? [])
clients.closeAll()
clients.pump(untilS: Clock.nowS() + 1)

// 4. The load: N clients, each HELLO, then location and heading.
let loaded = LoadClients(socketPath: socketPath, originS: originS, speed: 1)
let connectStartS = Clock.nowS()
for _ in 0..<options.clients {
    do { try loaded.connect(sending: [String(hello), subscribeLine(.location), subscribeLine(.heading)]) } catch {
        abort("client \(loaded.connections.count + 1): \(error)")
    }
}
let subscribeDeadlineS = Clock.nowS() + 60
while loaded.connections.contains(where: { $0.subscribedCount < 2 && $0.closedReason == nil }), Clock.nowS() < subscribeDeadlineS
{
    loaded.pump(untilS: Clock.nowS() + 0.1)
}
let subscribedS = Clock.nowS() - connectStartS
let fullySubscribed = loaded.connections.filter { $0.subscribedCount == 2 }.count
say(
    "DaemonLoad: \(options.clients) clients connected, \(fullySubscribed) subscribed to both in \(fixed(subscribedS, 2)) s; warming up \(fixed(options.warmupSeconds, 0)) s"
)
loaded.pump(untilS: Clock.nowS() + options.warmupSeconds)

say("DaemonLoad: measuring \(fixed(options.seconds, 0)) s")
var rssSamples: [Int] = []
var threadSamples: [Int] = []
guard let cpuBeforeS = daemon.cpuTimeS() else { abort("the daemon ended") }
var usageBefore = rusage()
getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usageBefore)
let windowStartS = Clock.nowS()
loaded.startWindow()
loaded.pump(untilS: windowStartS + options.seconds) {
    if let m = daemon.memory() { rssSamples.append(m.rssBytes) }
    if let t = daemon.threadCount() { threadSamples.append(t) }
}
loaded.endWindow()
let windowS = Clock.nowS() - windowStartS
// What the daemon dropped: each subscription's count, from its CLIENTS list (asked on a connection of its own).
let list = LoadClients(socketPath: socketPath, originS: originS, speed: 1).clientList(timeoutS: 15)
let subscriptionEntries = list?.clients.flatMap(\.subscriptions) ?? []
let droppedUpdates: Int? =
    list == nil || subscriptionEntries.contains { $0.droppedUpdates == nil }
    ? nil : subscriptionEntries.reduce(0) { $0 + ($1.droppedUpdates ?? 0) }
let subscriptionsThatDropped = subscriptionEntries.filter { ($0.droppedUpdates ?? 0) > 0 }.count
guard let cpuAfterS = daemon.cpuTimeS(), let memoryAtEnd = daemon.memory() else { abort("the daemon ended during the load") }
var usageAfter = rusage()
getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usageAfter)
let loadCPUPercent = 100 * (cpuAfterS - cpuBeforeS) / windowS
func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
let harnessCPUPercent =
    100
    * (seconds(usageAfter.ru_utime) + seconds(usageAfter.ru_stime) - seconds(usageBefore.ru_utime)
        - seconds(usageBefore.ru_stime)) / windowS

loaded.closeAll()
let stopStatus = daemon.stop(timeoutS: 30)
let stopLine = daemon.log.split(separator: "\n").last { $0.contains("stopped:") }.map(String.init)
let loadAverage = readProcFile("/proc/loadavg")?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"

// MARK: - Results

// The clients that got the fewest and the most of each kind, for a reader who wonders why the rates differ.
for kind in UpdateKind.allCases {
    let k = kind.rawValue
    let sorted = loaded.connections.enumerated().sorted { $0.element.windowCount[k] < $1.element.windowCount[k] }
    for (i, c) in [sorted.first, sorted.last].compactMap({ $0 }) {
        say(
            "DaemonLoad: client \(i + 1): \(c.windowCount[k]) \(kind.name) updates in the window, the longest gap \(fixed(c.longestGapS[k], 2)) s of session time, ending at \(fixed(c.longestGapEndS[k], 2)) s"
        )
    }
}

let result = LoadResult(
    clients: loaded.connections, window: loaded.window, windowS: windowS)
let pacing = Pacing(stopLine: stopLine)

var lines: [String] = []
lines.append("| measure | value | target |")
lines.append("|---|---|---|")
let latencyRows: [UpdateKind?] = [nil] + UpdateKind.allCases
for kind in latencyRows {
    let l = result.latencyMs(kind)
    let target = kind == nil ? "p99 ≤ \(fixed(Targets.latencyP99Ms, 0)) ms" : ""
    lines.append(
        "| delivery latency, \(kind?.name ?? "all updates") (\(l.count) updates): p50 / p99 / max | \(fixed(l.p50, 2)) / \(fixed(l.p99, 2)) / \(fixed(l.max, 2)) ms | \(target) |"
    )
}
for kind in UpdateKind.allCases {
    let r = result.ratesHz(kind)
    lines.append(
        "| \(kind.name) updates per client per second: min / median / max | \(fixed(r.min, 2)) / \(fixed(r.median, 2)) / \(fixed(r.max, 2)) | |"
    )
}
for kind in UpdateKind.allCases {
    let i = result.intervals(kind)
    lines.append(
        "| \(kind.name): session time between a client's updates, median / max | \(fixed(i.medianS * 1000, 0)) / \(fixed(i.maxS * 1000, 0)) ms | |"
    )
}
lines.append(
    "| updates dropped by the daemon (whole run; subscriptions that dropped any) | \(droppedUpdates.map(String.init) ?? "not counted") (\(subscriptionsThatDropped) of \(subscriptionEntries.count)) | 0 |"
)
lines.append("| out-of-order updates (location, heading) | \(result.window.outOfOrder[1]), \(result.window.outOfOrder[2]) | 0 |")
lines.append(
    "| clients without a heading in the window or a location update since subscribing | \(result.silentClients) | 0 |")
lines.append("| clients cut off or sent ERROR/ENDED | \(result.troubledClients.count) | 0 |")
lines.append(
    "| UPDATE lines decoded in full to check the scan; disagreeing; unreadable | \(result.window.validated); \(result.window.validationMismatches); \(result.window.unreadable) | 0; 0 |"
)
let deliveredCount = result.latencyMs(nil).count
lines.append(
    "| updates delivered, all clients | \(deliveredCount) (\(fixed(Double(deliveredCount) / windowS, 0)) a second) | |")
lines.append("| daemon CPU, % of one core | \(fixed(loadCPUPercent, 1)) % | |")
lines.append(
    "| daemon CPU per delivered update (all its work, the session's included, over the updates) | \(fixed((cpuAfterS - cpuBeforeS) / Double(max(1, deliveredCount)) * 1e6, 1)) µs | |"
)
let maxRSS = rssSamples.max() ?? memoryAtEnd.rssBytes
lines.append(
    "| daemon RSS: sampled max / at end / peak (VmHWM, whole run) | \(megabytes(maxRSS)) / \(megabytes(memoryAtEnd.rssBytes)) / \(megabytes(memoryAtEnd.peakRSSBytes)) MB | ≤ \(megabytes(Targets.rssBytes)) MB |"
)
lines.append(
    "| of which anonymous (RssAnon: heap, stacks) at end; file-backed (code of the binary and libraries) | \(megabytes(memoryAtEnd.anonymousBytes)); \(megabytes(memoryAtEnd.rssBytes - memoryAtEnd.anonymousBytes)) MB | |"
)
lines.append("| daemon threads (max) | \(threadSamples.max().map(String.init) ?? "?") | |")
lines.append("| harness CPU (the clients, one thread), % of one core | \(fixed(harnessCPUPercent, 1)) % | |")
lines.append("| subscribing \(options.clients) clients (connect to both SUBSCRIBED) | \(fixed(subscribedS, 2)) s | |")
lines.append(
    "| session steps (whole run); began after the next was due; latest start | \(pacing.steps); \(pacing.overruns); \(pacing.maxLatenessMs) ms late | 0 overruns |"
)
var idleLines = ["| daemon with | CPU, % of one core | RSS (anonymous) | target |", "|---|---|---|---|"]
for p in idlePhases {
    let target = p.name == "no client" ? "" : "≤ \(fixed(Targets.idleClientCPUPercent, 0)) %"
    idleLines.append(
        "| \(p.name) | \(fixed(p.cpuPercent, 2)) % | \(megabytes(p.rssBytes)) MB (\(megabytes(p.anonymousBytes)) MB) | \(target) |"
    )
}

// Correctness (asserted by --check) and targets (asserted by --check-targets).
var failures: [String] = []
if fullySubscribed < options.clients {
    failures.append("\(options.clients - fullySubscribed) clients were not subscribed to both kinds")
}
if let d = droppedUpdates {
    if d > 0 { failures.append("the daemon dropped \(d) updates") }
} else {
    failures.append("the daemon's CLIENTS list did not count dropped updates")
}
if result.window.outOfOrder.reduce(0, +) > 0 { failures.append("updates out of order") }
if result.silentClients > 0 { failures.append("\(result.silentClients) clients went without updates") }
if !result.troubledClients.isEmpty {
    failures.append("clients in trouble: \(result.troubledClients.prefix(3).joined(separator: "; "))")
}
if !idleProblems.isEmpty { failures.append("the idle client: \(idleProblems.joined(separator: "; "))") }
if result.window.validationMismatches > 0 || result.window.unreadable > 0 { failures.append("UPDATE lines misread") }
if stopStatus != 0 { failures.append("the daemon's exit status was \(stopStatus.map(String.init) ?? "none: killed")") }
var missedTargets: [String] = []
if result.latencyMs(nil).p99 > Targets.latencyP99Ms {
    missedTargets.append("latency p99 \(fixed(result.latencyMs(nil).p99, 2)) ms")
}
if max(maxRSS, memoryAtEnd.peakRSSBytes) > Targets.rssBytes {
    missedTargets.append("RSS \(megabytes(max(maxRSS, memoryAtEnd.peakRSSBytes))) MB")
}
for p in idlePhases where p.name != "no client" && p.cpuPercent > Targets.idleClientCPUPercent {
    missedTargets.append("\(p.name): \(fixed(p.cpuPercent, 1)) % of a core")
}

let title =
    "\(options.clients) clients × (location + heading at \(fixed(options.headingRateHz, 0)) Hz, filter \(fixed(options.headingFilterDeg, 1))°), \(fixed(options.seconds, 0)) s after \(fixed(options.warmupSeconds, 0)) s of warm-up, scenario \(options.scenario)"
say("")
say("## Load: \(title)")
say(lines.joined(separator: "\n"))
say("")
say("## Idle (\(fixed(options.idleSeconds, 0)) s each)")
say(idleLines.joined(separator: "\n"))
say("")
say("load average at the end: \(loadAverage)")
say(
    failures.isEmpty
        ? "correctness: every client got every update, in order" : "correctness: FAILED: \(failures.joined(separator: "; "))")
say(missedTargets.isEmpty ? "targets: all met" : "targets missed: \(missedTargets.joined(separator: "; "))")

if let path = options.outputPath {
    let report = Report(
        date: machine.dateUTC, machine: machine.summary, command: "DaemonLoad " + commandLine, title: title,
        loadTable: lines, idleTable: idleLines, idleSeconds: options.idleSeconds, loadAverageAtEnd: loadAverage,
        failures: failures, missedTargets: missedTargets, daemonLog: stopLine)
    guard let f = fopen(path, "w"), fputs(report.markdown, f) >= 0, fclose(f) == 0 else { fail("cannot write \(path)") }
    say("DaemonLoad: wrote \(path)")
}

if failures.isEmpty && (missedTargets.isEmpty || !options.checkTargets) {
    _ = unlink(socketPath); _ = unlink(policyPath); _ = unlink(daemon.logPath); _ = rmdir(directory + "/state");
    _ = rmdir(directory)
} else {
    say("DaemonLoad: the daemon's log is in \(daemon.logPath)")
}
if options.check && !failures.isEmpty { exit(1) }
if options.checkTargets && !missedTargets.isEmpty { exit(1) }
