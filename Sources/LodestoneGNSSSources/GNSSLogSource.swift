import LodestoneCore
import LodestoneLinux
import LodestoneLocation
import LodestoneSources

/// A recorded receiver log (NMEA 0183 and/or UBX, plain or `.gz`) played back as a receiver: its epochs are
/// delivered at the pace they were recorded (their UTC differences), the first one when the run starts.
/// Epochs without UTC follow their predecessor by `fallbackIntervalS`. At the end of the log it has nothing more.
///
/// Its power cannot be commanded (`UncommandedReceiver`): a plan for it is recorded and modelled as always tracking.
public struct GNSSLogSource: UncommandedReceiver {
    public let id: String
    public let label: String
    public let rateHz: Double
    /// A recording: its dates are kept as recorded.
    public var replaysRecording: Bool { true }
    public let path: String
    /// The recorded receiver's energy model (`generic` unless the board file names one).
    public let receiverModel: String
    /// The mode last planned (not applied: a recording plays back as recorded).
    public var mode: GNSSReceiverMode = .continuous(rateHz: 1)
    /// Spacing of epochs whose time is unknown, s.
    public var fallbackIntervalS = 1.0
    private var epochs: [(offsetS: Double, report: GNSSFixReport)] = []
    private var next = 0
    private var startS: Double?

    public init(id: String, path: String, rateHz: Double = 20, receiverModel: String? = nil) {
        self.id = id; self.path = path; self.rateHz = rateHz; self.receiverModel = receiverModel ?? "generic"
        label = "GNSS log \(path)"
    }

    /// Decodes a log into its epochs (one report per epoch, in order).
    public static func epochs(of bytes: [UInt8]) -> [GNSSFixReport] {
        var decoder = GNSSDecoder()
        var delivery = GNSSEpochDelivery()
        var out: [GNSSFixReport] = []
        bytes.withUnsafeBytes { raw in
            decoder.feed(raw) { e in
                if case .report(let r, let end) = e {
                    let (closed, ended) = delivery.accept(r, endsCycle: end)
                    if let c = closed { out.append(c) }
                    if let n = ended { out.append(n) }
                }
            }
        }
        if let last = delivery.flush() { out.append(last) }
        return out
    }

    public mutating func start() throws(SourceError) {
        guard epochs.isEmpty else { return }
        let bytes: [UInt8]
        do { bytes = try GzipFile.readAll(path: path) } catch {
            throw SourceError(sensor: id, message: error.description)
        }
        var first: UTCTime?
        var previousOffset = -fallbackIntervalS
        for r in Self.epochs(of: bytes) {
            var offset = previousOffset + fallbackIntervalS
            if let t = r.time {
                if first == nil { first = t }
                if let f = first {
                    let o = Double(t.seconds - f.seconds) + Double(t.nanoseconds - f.nanoseconds) * 1e-9
                    if o >= previousOffset { offset = o }
                }
            }
            epochs.append((offset, r))
            previousOffset = offset
        }
        guard !epochs.isEmpty else {
            throw SourceError(sensor: id, message: "\(path): no receiver epochs in the file; is it an NMEA or UBX log?")
        }
    }

    public mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        if startS == nil { startS = timeS }
        guard next < epochs.count, let s = startS, timeS - s + 1e-9 >= epochs[next].offsetS else { return .none }
        var due = next
        while due + 1 < epochs.count && timeS - s + 1e-9 >= epochs[due + 1].offsetS { due += 1 }
        next = due + 1
        return .fix(epochs[due].report.receiverFix(timeS: timeS))
    }
}

extension GNSSEpochDelivery {
    /// The epoch still open at the end of input, if it was not delivered.
    mutating func flush() -> GNSSFixReport? {
        accept(GNSSFixReport(), endsCycle: false).0
    }
}
