import LodestoneCore
import LodestoneLinux
import LodestoneSources

/// A kernel IIO device as an engine source, read through libiio. The kernel's `mount_matrix` (when the driver
/// publishes one) is applied first, then the board file's mount.
public struct IIOSource: SensorSource {
    public let id: String
    public let label: String
    public let rateHz: Double
    public let device: String
    public let uri: String
    public let mount: Matrix3
    public let applyKernelMountMatrix: Bool
    private var sensor: IIOSensor?
    private var kernelMount: Matrix3 = .identity
    /// After `start()`: one line per kernel-driver quirk Lodestone corrects for this device (`IIOSensor.notices`).
    public private(set) var notices: [String] = []

    /// Opens nothing yet; `start()` connects.
    public init(id: String, device: String, uri: String, rateHz: Double, mount: Matrix3, applyKernelMountMatrix: Bool = true)
        throws(JobError)
    {
        self.id = id; self.device = device; self.uri = uri; self.rateHz = rateHz; self.mount = mount
        self.applyKernelMountMatrix = applyKernelMountMatrix
        label = "iio \(device) @ \(uri)"
    }

    public mutating func start() throws(SourceError) {
        do {
            let context = try IIOContext(uri: uri)
            let s = try IIOSensor(context: context, device: device)
            // Ask for the configured rate where the driver has one; a driver without the attribute is fine.
            if rateHz > 0 { _ = try? s.setSamplingFrequency(hz: rateHz) }
            var k = Matrix3.identity
            if applyKernelMountMatrix {
                for type in [IIOChannelType.acceleration, .angularVelocity, .magneticField] {
                    if let m = try? s.mountMatrix(for: type) { k = m; break }
                }
            }
            kernelMount = k
            sensor = s
            notices = s.notices
        } catch {
            throw SourceError(sensor: id, message: error.description, deviceGone: true)
        }
    }

    public mutating func read(timeS: Double) throws(SourceError) -> SourceReading {
        guard let sensor else { throw SourceError(sensor: id, message: "not started", deviceGone: true) }
        do {
            return .sensor(try sensor.read(timeS: timeS).mounted(by: mount * kernelMount))
        } catch {
            throw SourceError(sensor: id, message: error.description)
        }
    }
}
