/// What a gpsd endpoint serves: its VERSION and its receiver.
public struct GPSDEndpoint: Sendable, Hashable {
    /// The VERSION sent on connect and on `?VERSION;` (default: Debian 12's gpsd 3.22, protocol 3.14).
    public var version: GPSDVersion
    /// The receiver (`nil` on a board without one: DEVICES is empty, and WATCH of a device fails).
    public var device: GPSDDevice?

    public init(version: GPSDVersion = .debian12, device: GPSDDevice?) {
        self.version = version
        self.device = device
    }
}

/// One client connection's side of gpsd's protocol: its watch policy, its request lines in and the replies out, and
/// the reports cached for `?POLL;`. A value type the server owns, one per connection, driven from the connection's
/// task; synchronous, no locks, no I/O. The server sends `banner()` on connect, feeds every line (or every chunk of
/// bytes) it reads and sends the replies in order; it streams the report lines built by `GPSDReport` while
/// `watch.streamsJSON` (and only for `wantsReports(fromDevice:)`), and calls `cache(tpv:sky:)` with the latest TPV
/// and SKY lines so that `?POLL;` can answer.
public struct GPSDClientSession: Sendable {
    /// What the endpoint serves.
    public let endpoint: GPSDEndpoint
    /// The client's policy (all off until its first `?WATCH`).
    public private(set) var watch = GPSDWatch()
    /// The last TPV and SKY lines, for `?POLL;`.
    public private(set) var cachedTPV: String?
    public private(set) var cachedSKY: String?
    private var reader = GPSDLineReader()

    public init(endpoint: GPSDEndpoint) {
        self.endpoint = endpoint
    }

    /// The VERSION line sent unprompted on connect.
    public func banner() -> String { GPSDReport.version(endpoint.version) }

    /// True when TPV, SKY and ATT are to be streamed to this client (`enable` and `json`).
    public var streamsJSON: Bool { watch.streamsJSON }

    /// True when the client asked for NMEA or raw receiver data (`nmea`, or `raw` ≥ 1). Lodestone generates none
    /// yet: such a client gets its JSON only (if it asked for it).
    public var wantsReceiverData: Bool { watch.wantsReceiverData }

    /// True when reports of the device at `path` go to this client (its WATCH names no device, or this one).
    public func wantsReports(fromDevice path: String) -> Bool { watch.device == nil || watch.device == path }

    /// True while the client's current line has passed `GPSDLineReader.maximumLineBytes` without a line end (its
    /// bytes are being dropped); a server may close such a connection.
    public var isOverlong: Bool { reader.isDroppingLongLine }

    /// Keeps the latest TPV and SKY lines (as `GPSDReport` built them) for `?POLL;`; `nil` keeps the previous one.
    public mutating func cache(tpv: String?, sky: String?) {
        if let tpv { cachedTPV = tpv }
        if let sky { cachedSKY = sky }
    }

    /// Takes bytes as read from the client; returns the replies to the lines they complete, in order. A line longer
    /// than `GPSDLineReader.maximumLineBytes` is answered with one ERROR and dropped.
    ///
    /// - Parameter nowUnixS: the server's UTC, s since 1970-01-01T00:00:00Z (POLL's `time`).
    public mutating func receive(bytes: some Sequence<UInt8>, nowUnixS: Double) -> [String] {
        var replies: [String] = []
        for line in reader.append(bytes) {
            switch line {
            case .text(let text): replies += receive(line: text, nowUnixS: nowUnixS)
            case .tooLong: replies.append(Self.tooLongError)
            }
        }
        return replies
    }

    /// Answers one request line (with or without its line end; give the line end when there is one, since ERROR
    /// quotes it as gpsd does): one or more commands, each answered in order.
    ///
    /// - Parameter nowUnixS: the server's UTC, s since 1970-01-01T00:00:00Z (POLL's `time`).
    public mutating func receive(line: some StringProtocol, nowUnixS: Double) -> [String] {
        var replies: [String] = []
        for request in GPSDRequestParser.parse(line) {
            switch request {
            case .version:
                replies.append(GPSDReport.version(endpoint.version))
            case .devices:
                replies.append(devicesLine)
            case .watch(nil):
                replies += [devicesLine, GPSDReport.watch(watch)]
            case .watch(let object?):
                var next = watch
                do {
                    try next.apply(object)
                } catch {
                    replies += [GPSDReport.error("Invalid WATCH: \(error.description)"), devicesLine, GPSDReport.watch(watch)]
                    continue
                }
                if next.enable, let path = next.device, path != endpoint.device?.path {
                    // gpsd answers only the ERROR here; its policy is left as it was (gpsd's would keep the bad path
                    // and stream nothing).
                    replies.append(GPSDReport.error("No such device as \(path)"))
                    continue
                }
                watch = next
                replies += [devicesLine, GPSDReport.watch(watch)]
            case .invalidWatch(let message):
                replies += [GPSDReport.error("Invalid WATCH: \(message)"), devicesLine, GPSDReport.watch(watch)]
            case .poll:
                let watched = watch.enable && endpoint.device.map { wantsReports(fromDevice: $0.path) } == true
                replies.append(
                    GPSDReport.poll(
                        nowUnixS: nowUnixS, active: watched ? 1 : 0,
                        tpv: watched ? cachedTPV.map { [$0] } ?? [] : [], sky: watched ? cachedSKY.map { [$0] } ?? [] : []))
            case .device(let object):
                replies.append(deviceReply(object))
            case .invalidDevice(let message):
                replies.append(GPSDReport.error("Invalid DEVICE: \(message)"))
            case .unrecognized(let text):
                replies.append(GPSDReport.error("Unrecognized request '\(text)'"))
            case .tooLong:
                replies.append(Self.tooLongError)
            }
        }
        return replies
    }

    /// The ERROR for a request line over the limit.
    static let tooLongError = GPSDReport.error(
        "Request too long: more than \(GPSDRequestParser.maximumLineBytes) bytes without a line end")

    /// Serial settings `?DEVICE={…}` may carry; we change none.
    static let settingMembers = ["bps", "parity", "stopbits", "native", "cycle", "hexdata"]

    private var devicesLine: String { GPSDReport.devices(endpoint.device.map { [$0] } ?? []) }

    private func deviceReply(_ object: GPSDJSONValue?) -> String {
        guard let device = endpoint.device else { return GPSDReport.error("No devices") }
        guard let object else { return GPSDReport.device(device) }
        if case .string(let path)? = object["path"], path != device.path {
            return GPSDReport.error("Can't open \(path).")
        }
        if let member = Self.settingMembers.first(where: { object[$0] != nil }) {
            return GPSDReport.error(
                "Can't change \(member): lodestone serves a fused receiver and does not change its settings")
        }
        return GPSDReport.device(device)
    }
}
