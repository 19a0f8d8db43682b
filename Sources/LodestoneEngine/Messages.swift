import Foundation
import LodestoneCore

/// The `--json` wire format of `lodestone run` and `lodestone read`: one JSON object per line.
///
/// Versioned and self-describing: every `run` message has a `class`; the first states the protocol version;
/// keys carry units; values that are unknown are omitted, never NaN.
public enum Wire {
    /// Protocol version of `lodestone run --json`.
    public static let protocolVersion = 1

    /// `{"class":"VERSION",…}` — first line of `run --json`.
    public struct Version: Codable, Sendable {
        public var `class` = "VERSION"
        public var protocolVersion = Wire.protocolVersion
        public var release: String
        enum CodingKeys: String, CodingKey { case `class`, protocolVersion = "protocol", release }
    }

    /// `{"class":"BOARD",…}` — the board in use.
    public struct Board: Codable, Sendable {
        public var `class` = "BOARD"
        public var name: String
        public var path: String?
        public var sensors: [Sensor]
        public var scenario: String?
        public var seed: UInt64?
        public struct Sensor: Codable, Sendable {
            public var id: String
            public var label: String
            public var rateHz: Double
            enum CodingKeys: String, CodingKey { case id, label, rateHz = "rate_hz" }
        }
    }

    /// One sample: the keys of `lodestone read --json`, plus `class` in `run`.
    public struct Sample: Codable, Sendable, Equatable {
        public var `class`: String?
        public var tS: Double
        public var sensor: String
        public var pressurePa: Double?
        public var temperatureC: Double?
        public var accXMps2: Double?
        public var accYMps2: Double?
        public var accZMps2: Double?
        public var gyrXRadS: Double?
        public var gyrYRadS: Double?
        public var gyrZRadS: Double?
        public var magXMicroTesla: Double?
        public var magYMicroTesla: Double?
        public var magZMicroTesla: Double?

        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", sensor, pressurePa = "pressure_pa", temperatureC = "temperature_c"
            case accXMps2 = "acc_x_mps2", accYMps2 = "acc_y_mps2", accZMps2 = "acc_z_mps2"
            case gyrXRadS = "gyr_x_rads", gyrYRadS = "gyr_y_rads", gyrZRadS = "gyr_z_rads"
            case magXMicroTesla = "mag_x_ut", magYMicroTesla = "mag_y_ut", magZMicroTesla = "mag_z_ut"
        }

        public init(sensor: String, reading r: SensorReading, messageClass: String? = nil) {
            self.class = messageClass
            tS = r.timeS; self.sensor = sensor
            pressurePa = r.pressurePa.finite; temperatureC = r.temperatureC.finite
            accXMps2 = r.accelerationMps2?.x.finite; accYMps2 = r.accelerationMps2?.y.finite; accZMps2 = r.accelerationMps2?.z.finite
            gyrXRadS = r.angularVelocityRadS?.x.finite; gyrYRadS = r.angularVelocityRadS?.y.finite; gyrZRadS = r.angularVelocityRadS?.z.finite
            magXMicroTesla = r.magneticFieldMicroTesla?.x.finite; magYMicroTesla = r.magneticFieldMicroTesla?.y.finite
            magZMicroTesla = r.magneticFieldMicroTesla?.z.finite
        }
    }

    /// `{"class":"FIX",…}` — a receiver's fix as reported (before fusion). Unknown values are omitted.
    public struct Fix: Codable, Sendable {
        public var `class` = "FIX"
        public var tS: Double
        public var sensor: String
        /// gpsd's mode: 0 unknown, 1 no fix, 2 2D, 3 3D.
        public var mode: Int
        public var latDeg: Double?
        public var lonDeg: Double?
        /// Height above the WGS84 ellipsoid, m.
        public var heightM: Double?
        public var altMSLM: Double?
        public var speedMps: Double?
        /// Course over ground, deg; omitted when too slow to define one.
        public var courseDeg: Double?
        public var horizontalAccuracyM: Double?
        public var verticalAccuracyM: Double?
        enum CodingKeys: String, CodingKey {
            case `class`, tS = "t_s", sensor, mode, latDeg = "lat_deg", lonDeg = "lon_deg", heightM = "height_m"
            case altMSLM = "alt_msl_m", speedMps = "speed_mps"
            case courseDeg = "course_deg", horizontalAccuracyM = "h_acc_m", verticalAccuracyM = "v_acc_m"
        }
        public init(sensor: String, fix f: ReceiverFix) {
            tS = f.timeS; self.sensor = sensor; mode = f.mode.rawValue
            latDeg = f.latitudeDeg.finite; lonDeg = f.longitudeDeg.finite; heightM = f.ellipsoidalHeightM.finite
            altMSLM = f.altitudeMSLM.finite; speedMps = f.speedMps.finite; courseDeg = f.courseDeg.finite
            horizontalAccuracyM = f.horizontalAccuracyM.finite; verticalAccuracyM = f.verticalAccuracyM.finite
        }
    }

    /// `{"class":"STATUS",…}` — once a second: each sensor's health and measured rate; `degraded` lists
    /// what is not working.
    public struct Status: Codable, Sendable {
        public var `class` = "STATUS"
        public var tS: Double
        public var sensors: [Sensor]
        public var degraded: [String]
        public var truth: Truth?
        /// The scheduler's plan in brief (scheduled runs only).
        public var plan: PlanSummary? = nil
        public struct Sensor: Codable, Sendable {
            public var id: String
            public var health: String
            public var message: String?
            public var rateHz: Double
            public var samples: Int
            public var failures: Int
            enum CodingKeys: String, CodingKey { case id, health, message, rateHz = "rate_hz", samples, failures }
        }
        /// Simulated-board truth (only on the simulated board).
        public struct Truth: Codable, Sendable {
            public var activity: String
            public var segment: String
            public var floor: Int
            public var latDeg: Double
            public var lonDeg: Double
            public var heightM: Double
            public var headingDeg: Double
            enum CodingKeys: String, CodingKey {
                case activity, segment, floor, latDeg = "lat_deg", lonDeg = "lon_deg", heightM = "height_m", headingDeg = "heading_deg"
            }
            public init(activity: String, segment: String, floor: Int, latDeg: Double, lonDeg: Double, heightM: Double, headingDeg: Double) {
                self.activity = activity; self.segment = segment; self.floor = floor
                self.latDeg = latDeg; self.lonDeg = lonDeg; self.heightM = heightM; self.headingDeg = headingDeg
            }
        }
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", sensors, degraded, truth, plan }
    }

    /// `{"class":"ERROR",…}` — a sensor started failing or recovered.
    public struct Notice: Codable, Sendable {
        public var `class`: String
        public var tS: Double
        public var sensor: String
        public var message: String
        enum CodingKeys: String, CodingKey { case `class`, tS = "t_s", sensor, message }
        public init(messageClass: String, tS: Double, sensor: String, message: String) {
            self.class = messageClass; self.tS = tS; self.sensor = sensor; self.message = message
        }
    }

    /// `{"class":"CALIBRATION",…}` — after BOARD: the calibration fusion applies (`path`, and per sensor the
    /// kinds calibrated and when), or `searched` when none was found, or `disabled`.
    public struct Calibration: Codable, Sendable {
        public var `class` = "CALIBRATION"
        public var path: String?
        public var board: String?
        public var sensors: [Sensor]
        public var searched: [String]?
        public var disabled: Bool?
        public struct Sensor: Codable, Sendable {
            public var id: String
            public var kinds: [String]
        }
        public init(_ c: CalibrationStage.Configuration) {
            path = c.path
            board = c.document?.board
            sensors = (c.document?.sensors ?? []).map { Sensor(id: $0.id, kinds: $0.kinds.map(\.rawValue)) }
            searched = c.document == nil && !c.searched.isEmpty ? c.searched : nil
            disabled = c.disabled ? true : nil
        }
    }

    /// The one encoder of the wire format: keys sorted, `/` not escaped. Configured once here and never changed;
    /// `JSONEncoder` is `Sendable` (Foundation keeps its options behind a lock and encodes each call with a fresh
    /// internal encoder), so `run --json`'s messages share it instead of making one each (~165 messages/s).
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Encodes one message as a single line (no trailing newline).
    public static func line<T: Encodable>(_ value: T) -> String {
        guard let data = try? encoder.encode(value), let s = String(data: data, encoding: .utf8) else {
            // Encoding plain structs of finite numbers and strings cannot fail; keep the stream valid anyway.
            return #"{"class":"ERROR","message":"internal: could not encode a message"}"#
        }
        return s
    }
}

extension Optional where Wrapped == Double {
    /// nil for NaN/infinite values: the wire never carries NaN.
    var finite: Double? { flatMap { $0.isFinite ? $0 : nil } }
}
extension Double {
    var finite: Double? { isFinite ? self : nil }
}
