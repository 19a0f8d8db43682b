#if canImport(Glibc)
    import Glibc
#endif
import Foundation
import LodestoneService

/// The kinds the harness subscribes to, by the subscription id it gives them (the same on every connection).
enum UpdateKind: Int, CaseIterable {
    case location = 1
    case heading = 2
    var name: String { self == .location ? "location" : "heading" }
}

/// One client connection of the native protocol: nonblocking, read by `LoadClients.pump` on the harness's one thread.
final class LoadConnection {
    let fd: Int32
    var inbound: [UInt8] = []
    /// `SUBSCRIBED` lines received.
    var subscribedCount = 0
    /// Why the connection is over (the daemon closed it, or a read failed); `nil` while open or closed by the harness.
    var closedReason: String?
    var closedByHarness = false
    var isOpen: Bool { closedReason == nil && !closedByHarness }
    /// The daemon's `CLIENTS` answer, when this connection asked for it.
    var clientList: NativeProtocol.Clients?
    /// `ERROR` and `ENDED` lines, and lines that are not the protocol's.
    var problems: [String] = []
    /// Per kind: the session time of the latest update (s) and the updates counted in the measured window.
    var lastTimeS = [Double](repeating: -.infinity, count: UpdateKind.allCases.count + 1)
    var windowCount = [Int](repeating: 0, count: UpdateKind.allCases.count + 1)
    /// Per kind, the longest session time between two updates in the window, s, and when it ended.
    var longestGapS = [Double](repeating: 0, count: UpdateKind.allCases.count + 1)
    var longestGapEndS = [Double](repeating: 0, count: UpdateKind.allCases.count + 1)
    /// Per kind, every update since the connection subscribed (warm-up included).
    var totalCount = [Int](repeating: 0, count: UpdateKind.allCases.count + 1)
    init(fd: Int32) { self.fd = fd }
}

/// What the measured window saw, per kind (indexed by `UpdateKind.rawValue`).
struct WindowRecord {
    /// Delivery latency of each update: received − due time of its sample, s.
    var latencyS: [[Double]] = Array(repeating: [], count: UpdateKind.allCases.count + 1)
    /// Session time between consecutive updates of one subscription, s.
    var intervalsS: [[Double]] = Array(repeating: [], count: UpdateKind.allCases.count + 1)
    /// Updates whose session time was not after the previous one's.
    var outOfOrder = [Int](repeating: 0, count: UpdateKind.allCases.count + 1)
    /// UPDATE lines also decoded in full (`NativeProtocol.decodeDaemonMessage`) to check the fast scan, and how many
    /// of those disagreed with it.
    var validated = 0
    var validationMismatches = 0
    /// UPDATE lines the fast scan could not read (no id or time, or an id the harness never used).
    var unreadable = 0
}

/// N client connections on one thread: `poll()` over all of them, each line timed on arrival.
///
/// Lines are read by `scan(_:)`, which follows the JSON's nesting to the top-level `class` and `id` and the `timeS` of
/// the top-level `location` or `heading` object, rather than by a full decode, so that the harness, which shares the
/// machine's cores with the daemon, spends as little as it can; one UPDATE line in `validateEvery` is also decoded in
/// full and compared.
final class LoadClients {
    let socketPath: String
    /// CLOCK_MONOTONIC time at which session time 0 was due, s, and the session's speed (from the daemon's log).
    let originS: Double
    let speed: Double
    private(set) var connections: [LoadConnection] = []
    /// Updates are recorded in `window` between `startWindow()` and `endWindow()`.
    private(set) var window = WindowRecord()
    private var measuring = false
    private var updateLines = 0
    static let validateEvery = 97
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 * 1024, alignment: 8)

    init(socketPath: String, originS: Double, speed: Double) {
        self.socketPath = socketPath; self.originS = originS; self.speed = speed
    }
    deinit { readBuffer.deallocate() }

    /// Connects one client (blocking connect, then nonblocking) and sends `lines`.
    /// - Throws: `HarnessError` with errno when the socket cannot be reached.
    @discardableResult
    func connect(sending lines: [String]) throws(HarnessError) -> LoadConnection {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw HarnessError("socket path too long: \(socketPath)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + path.count)
        let rc = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw HarnessError("connect \(socketPath): errno \(e)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let c = LoadConnection(fd: fd)
        connections.append(c)
        for line in lines { send(line, on: c) }
        return c
    }

    /// Sends one line (with its end). The harness's lines are short and sent on an idle socket: a short write is
    /// recorded as a problem of the connection, not retried.
    func send(_ line: String, on c: LoadConnection) {
        var text = line + "\n"
        let n = text.withUTF8 { write(c.fd, $0.baseAddress, $0.count) }
        if n != text.utf8.count { c.problems.append("short write (\(n) of \(text.utf8.count) bytes, errno \(errno))") }
    }

    /// The daemon's `CLIENTS` list, asked on a new connection of these clients (root or the daemon's own user only);
    /// `nil` when it did not come within `timeoutS`.
    func clientList(timeoutS: Double) -> NativeProtocol.Clients? {
        let query = String(NativeProtocol.line(NativeProtocol.Query("CLIENTS")).dropLast())
        guard let c = try? connect(sending: [query]) else { return nil }
        let deadline = Clock.nowS() + timeoutS
        while c.clientList == nil, c.isOpen, Clock.nowS() < deadline { pump(untilS: Clock.nowS() + 0.05) }
        return c.clientList
    }

    /// Closes every connection.
    func closeAll() {
        for c in connections where c.isOpen {
            close(c.fd)
            c.closedByHarness = true
        }
    }

    func startWindow() {
        window = WindowRecord()
        for c in connections { for k in c.windowCount.indices { c.windowCount[k] = 0 } }
        measuring = true
    }
    func endWindow() { measuring = false }

    /// Reads every connection until `endS` (CLOCK_MONOTONIC), calling `tick` about once a second.
    func pump(untilS endS: Double, tick: () -> Void = {}) {
        var nextTickS = Clock.nowS() + 1
        var fds: [pollfd] = []
        var owners: [LoadConnection] = []
        func rebuild() {
            owners = connections.filter(\.isOpen)
            fds = owners.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        }
        rebuild()
        while true {
            let now = Clock.nowS()
            if now >= nextTickS {
                tick()
                nextTickS += 1
            }
            if now >= endS { return }
            let timeoutMs = Int32(max(0, min(100, (min(endS, nextTickS) - now) * 1000)).rounded(.up))
            let n = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeoutMs) }
            if n <= 0 { continue }
            var anyClosed = false
            for i in fds.indices where fds[i].revents != 0 {
                read(owners[i])
                if owners[i].closedReason != nil { anyClosed = true }
            }
            if anyClosed { rebuild() }
        }
    }

    /// Reads what waits on `c` and handles each whole line.
    private func read(_ c: LoadConnection) {
        while true {
            let n = Glibc.read(c.fd, readBuffer.baseAddress, readBuffer.count)
            if n < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return }
                c.closedReason = "read failed: errno \(errno)"
                close(c.fd)
                return
            }
            if n == 0 {
                c.closedReason = "the daemon closed the connection"
                close(c.fd)
                return
            }
            let receivedS = Clock.nowS()
            var bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<n])
            while let newline = bytes.firstIndex(of: 10) {
                let piece = UnsafeRawBufferPointer(rebasing: bytes[bytes.startIndex..<newline])
                if c.inbound.isEmpty {
                    handle(line: piece, on: c, receivedS: receivedS)
                } else {
                    c.inbound.append(contentsOf: piece)
                    c.inbound.withUnsafeBytes { handle(line: $0, on: c, receivedS: receivedS) }
                    c.inbound.removeAll(keepingCapacity: true)
                }
                bytes = UnsafeRawBufferPointer(rebasing: bytes[(newline + 1)...])
            }
            c.inbound.append(contentsOf: bytes)
            if n < readBuffer.count { return }
        }
    }

    private func handle(line: UnsafeRawBufferPointer, on c: LoadConnection, receivedS: Double) {
        let scanned = Self.scan(line)
        guard scanned.isUpdate else {
            handleOther(line: line, on: c)
            return
        }
        guard let id = scanned.id.flatMap({ Int(exactly: $0) }), let kind = UpdateKind(rawValue: id),
            let timeS = scanned.timeS
        else {
            if measuring { window.unreadable += 1 }
            return
        }
        updateLines += 1
        if updateLines % Self.validateEvery == 0 { validate(line: line, id: id, timeS: timeS) }
        let k = kind.rawValue
        let previousS = c.lastTimeS[k]
        c.lastTimeS[k] = timeS
        c.totalCount[k] += 1
        guard measuring else { return }
        c.windowCount[k] += 1
        window.latencyS[k].append(receivedS - (originS + timeS / speed))
        if previousS.isFinite {
            if timeS <= previousS { window.outOfOrder[k] += 1 }
            window.intervalsS[k].append(timeS - previousS)
            if timeS - previousS > c.longestGapS[k] {
                c.longestGapS[k] = timeS - previousS
                c.longestGapEndS[k] = timeS
            }
        }
    }

    /// Decodes an UPDATE line in full and checks that the scan read the same id and time.
    private func validate(line: UnsafeRawBufferPointer, id: Int, timeS: Double) {
        guard measuring else { return }
        window.validated += 1
        guard case .update(let u) = try? NativeProtocol.decodeDaemonMessage(line), u.id == id,
            (u.location?.timeS ?? u.heading?.timeS) == timeS
        else {
            window.validationMismatches += 1
            return
        }
    }

    /// Any line but an UPDATE: decoded in full.
    private func handleOther(line: UnsafeRawBufferPointer, on c: LoadConnection) {
        let message: NativeProtocol.DaemonMessage
        do { message = try NativeProtocol.decodeDaemonMessage(line) } catch {
            c.problems.append("unreadable line: \(String(decoding: line.prefix(200), as: UTF8.self))")
            return
        }
        switch message {
        case .version, .authorization: break
        case .clients(let list): c.clientList = list
        case .subscribed: c.subscribedCount += 1
        case .ended(let e): c.problems.append("ENDED \(e.id): \(e.reason)")
        case .error(let e): c.problems.append("ERROR \(e.code.rawValue): \(e.message)")
        case .update:
            c.problems.append("an UPDATE line the scan did not read: \(String(decoding: line.prefix(200), as: UTF8.self))")
        case .unknown(let name): c.problems.append("unknown class \(name)")
        case .monitor, .streaming, .event, .acknowledgement, .visit, .significantChange, .history:
            c.problems.append("a monitoring line it never asked for: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
    }

    private static let classKey = Array("class".utf8)
    private static let updateClass = Array("UPDATE".utf8)
    private static let idKey = Array("id".utf8)
    private static let payloadKeys = [Array("location".utf8), Array("heading".utf8)]
    private static let timeKey = Array("timeS".utf8)

    /// Reads a daemon's line without decoding it: whether its top-level `class` is `UPDATE`, its top-level `id`, and the
    /// `timeS` directly inside its top-level `location` or `heading` object (the update's own time; a location's
    /// nested `location` has a `timeS` of its own). The members of a JSON object come in any order — Foundation's
    /// encoder on Linux keeps none — so the scan follows the nesting rather than taking the first match.
    static func scan(_ line: UnsafeRawBufferPointer) -> (isUpdate: Bool, id: Double?, timeS: Double?) {
        var isUpdate = false
        var id: Double?
        var timeS: Double?
        var depth = 0
        var payloadDepth = -1 // the depth inside the `location` or `heading` object, while in it
        var i = 0
        let n = line.count
        func matches(_ start: Int, _ end: Int, _ word: [UInt8]) -> Bool {
            guard end - start == word.count else { return false }
            for k in 0..<word.count where line[start + k] != word[k] { return false }
            return true
        }
        while i < n {
            switch line[i] {
            case 34: // a string: a key when a colon follows
                let start = i + 1
                var end = start
                while end < n, line[end] != 34 { end += line[end] == 92 ? 2 : 1 }
                var colon = end + 1
                while colon < n, line[colon] == 32 { colon += 1 }
                i = end + 1
                guard colon < n, line[colon] == 58 else { continue }
                var value = colon + 1
                while value < n, line[value] == 32 { value += 1 }
                if depth == 1 {
                    if matches(start, end, classKey), value < n, line[value] == 34 {
                        var valueEnd = value + 1
                        while valueEnd < n, line[valueEnd] != 34 { valueEnd += 1 }
                        isUpdate = matches(value + 1, valueEnd, updateClass)
                    } else if matches(start, end, idKey) {
                        id = number(at: value, in: line)
                    } else if payloadKeys.contains(where: { matches(start, end, $0) }), value < n, line[value] == 123 {
                        payloadDepth = 2
                    }
                } else if depth == payloadDepth, matches(start, end, timeKey) {
                    timeS = number(at: value, in: line)
                }
                i = colon + 1
            case 123, 91: // { [
                depth += 1
                i += 1
            case 125, 93: // } ]
                if depth == payloadDepth { payloadDepth = -1 }
                depth -= 1
                i += 1
            default:
                i += 1
            }
        }
        return (isUpdate, id, timeS)
    }

    /// The JSON number at `start` in `line`.
    private static func number(at start: Int, in line: UnsafeRawBufferPointer) -> Double? {
        var end = start
        while end < line.count, let b = Optional(line[end]),
            (b >= 48 && b <= 57) || b == 46 || b == 45 || b == 43 || b == 101 || b == 69
        {
            end += 1
        }
        guard end > start else { return nil }
        return Double(String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self))
    }
}
