import LodestoneCore
import LodestoneLinux
import LodestoneLocation
import LodestoneSources

/// A GPX 1.1 file played back as a simulated receiver, like Xcode's location simulation: every fix is marked
/// `quality: .simulated` (gpsd status 8, what Core Location calls `sourceInformation.isSimulatedBySoftware`).
///
/// Track points (or, without any, route points, else waypoints) are replayed at the pace of their `time`
/// stamps; points without time follow each other every `intervalS`. Speed and course are the geodesic ones
/// between consecutive points; `ele` is taken as altitude above mean sea level. After the last point the
/// playback loops when `loops` is set, else it stops delivering.
public struct GNSSGPXSource: SensorSource {
    public let id: String
    public let label: String
    public let rateHz: Double
    /// A recording: its dates are kept as recorded.
    public var replaysRecording: Bool { true }
    public let path: String
    /// Spacing of points without time, s (default 1).
    public var intervalS: Double
    /// Start again from the first point after the last.
    public var loops: Bool
    private var points: [GPXReader.Point] = []
    private var offsetsS: [Double] = []
    private var next = 0
    private var startS: Double?

    public init(id: String, path: String, rateHz: Double = 20, intervalS: Double = 1, loops: Bool = false) {
        self.id = id; self.path = path; self.rateHz = rateHz; self.intervalS = intervalS; self.loops = loops
        label = "GPX playback \(path) (simulated)"
    }

    /// Loads `points` directly (tests, or a GPX already read).
    public mutating func load(_ all: [GPXReader.Point]) {
        let tracks = all.filter { $0.kind == .trackPoint }
        let routes = all.filter { $0.kind == .routePoint }
        points = !tracks.isEmpty ? tracks : !routes.isEmpty ? routes : all
        offsetsS = []
        var previous = -intervalS
        let first = points.first?.time
        for p in points {
            var o = previous + intervalS
            if let t = p.time, let f = first {
                let dt = Double(t.seconds - f.seconds) + Double(t.nanoseconds - f.nanoseconds) * 1e-9
                if dt >= previous { o = dt }
            }
            offsetsS.append(o)
            previous = o
        }
    }

    public mutating func start() throws(SourceError) {
        guard points.isEmpty else { return }
        let text: String
        do { text = String(decoding: try GzipFile.readAll(path: path), as: UTF8.self) } catch {
            throw SourceError(sensor: id, message: error.description)
        }
        do { load(try GPXReader.points(in: text)) } catch {
            throw SourceError(sensor: id, message: "\(path): \(error.description)")
        }
        guard !points.isEmpty else {
            throw SourceError(sensor: id, message: "\(path): no waypoints, route points or track points")
        }
    }

    public mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        if startS == nil { startS = timeS }
        guard let s = startS else { return .none }
        if next >= points.count {
            guard loops, let last = offsetsS.last else { return .none }
            startS = s + last + intervalS
            next = 0
            return .none
        }
        guard timeS - s + 1e-9 >= offsetsS[next] else { return .none }
        let i = next
        next += 1
        let p = points[i]
        var f = ReceiverFix(timeS: timeS, mode: p.elevationM == nil ? .twoDimensional : .threeDimensional)
        f.quality = .simulated
        f.utcS = p.time?.secondsSince1970
        f.latitudeDeg = p.latitudeDeg
        f.longitudeDeg = p.longitudeDeg
        f.altitudeMSLM = p.elevationM
        let neighbour = i + 1 < points.count ? (i, i + 1) : i > 0 ? (i - 1, i) : nil
        if let (a, b) = neighbour {
            let dt = offsetsS[b] - offsetsS[a]
            let pa = points[a], pb = points[b]
            let course = GPXReader.courseDeg(from: pa, to: pb)
            let distance = EarthDistance.vincentyM(
                latitude1Deg: pa.latitudeDeg, longitude1Deg: pa.longitudeDeg,
                latitude2Deg: pb.latitudeDeg, longitude2Deg: pb.longitudeDeg)
            if dt > 0 { f.speedMps = distance / dt }
            if distance > 0 { f.courseDeg = course }
            if dt > 0, let ea = pa.elevationM, let eb = pb.elevationM { f.climbMps = (eb - ea) / dt }
        }
        return .fix(f)
    }
}
