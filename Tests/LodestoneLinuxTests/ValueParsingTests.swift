import LodestoneCore
import Testing
@testable import LodestoneLinux

/// The mount_matrix format of Documentation/ABI/testing/sysfs-bus-iio ("in_accel_mount_matrix"), as printed
/// by iio_show_mount_matrix ("%s, %s, %s; %s, %s, %s; %s, %s, %s\n").
@Suite struct MountMatrixParsing {
    @Test func parsesIdentityAsTheKernelPrintsIt() throws {
        #expect(try IIOMountMatrix.parse("1, 0, 0; 0, 1, 0; 0, 0, 1\n") == .identity)
    }

    @Test func rowsBecomeRowsSoMTimesChipGivesBoard() throws {
        let m = try IIOMountMatrix.parse("0, 1, 0; -1, 0, 0; 0, 0, 1")
        #expect(m.row0 == Vector3(0, 1, 0))
        #expect(m.row1 == Vector3(-1, 0, 0))
        #expect(m * Vector3(1, 2, 3) == Vector3(2, -1, 3))
        #expect(m.isRotation())
    }

    @Test func acceptsDecimalsAndLooseWhitespace() throws {
        let m = try IIOMountMatrix.parse(" 0.7071 ,-0.7071,0;0.7071, 0.7071, 0 ;  0 , 0 , 1  ")
        #expect(m.row0 == Vector3(0.7071, -0.7071, 0))
        #expect(m.row2 == Vector3(0, 0, 1))
    }

    @Test(
        "malformed text is a typed error naming the problem",
        arguments: [
            "", "1, 0, 0; 0, 1, 0", "1, 0, 0; 0, 1, 0; 0, 0, 1; 0, 0, 0", "1, 0; 0, 1, 0; 0, 0, 1",
            "1, 0, 0, 0; 0, 1, 0; 0, 0, 1",
            "1, 0, x; 0, 1, 0; 0, 0, 1", "1, 0, nan; 0, 1, 0; 0, 0, 1", "1, 0, inf; 0, 1, 0; 0, 0, 1", "1,,0; 0, 1, 0; 0, 0, 1"
        ])
    func rejects(_ text: String) {
        #expect {
            _ = try IIOMountMatrix.parse(text)
        } throws: { error in
            guard let e = error as? IIOError else { return false }
            return e.kind == .malformedValue && e.attribute == "mount_matrix"
        }
    }
}

@Suite struct AvailableValuesParsing {
    @Test func parsesAList() throws {
        #expect(try IIOAvailableValues.parse("12.5 26 52 104\n") == .list([12.5, 26, 52, 104]))
    }

    @Test func parsesARange() throws {
        #expect(try IIOAvailableValues.parse("[0.1 0.1 25.6]") == .range(minimum: 0.1, step: 0.1, maximum: 25.6))
    }

    @Test("rejects", arguments: ["", "  \n", "1 two 3", "[1 2]", "[1 2 3", "[1 2 3 4]"])
    func rejects(_ text: String) {
        #expect(throws: IIOError.self) { try IIOAvailableValues.parse(text) }
    }
}

@Suite struct ChannelTypes {
    @Test(
        "the type is the first word of the channel id, without its index",
        arguments: [
            ("accel_x", "accel"), ("anglvel_z", "anglvel"), ("magn_y", "magn"), ("temp", "temp"), ("temp_ambient", "temp"),
            ("voltage0", "voltage"), ("voltage0-voltage1", "voltage"), ("humidityrelative", "humidityrelative"),
            ("timestamp", "timestamp"), ("pressure", "pressure")
        ])
    func typeOfID(_ pair: (String, String)) {
        #expect(IIOChannelType(channelID: pair.0).rawValue == pair.1)
    }

    /// ABI units (sysfs-bus-iio) to SI.
    @Test func siFactors() {
        #expect(IIOChannelType.acceleration.siFactor == 1) // m/s²
        #expect(IIOChannelType.angularVelocity.siFactor == 1) // rad/s
        #expect(IIOChannelType.magneticField.siFactor == 100) // gauss → µT
        #expect(IIOChannelType.pressure.siFactor == 1000) // kPa → Pa
        #expect(IIOChannelType.temperature.siFactor == 0.001) // m°C → °C
        #expect(IIOChannelType.relativeHumidity.siFactor == 0.001) // m% → %
        #expect(IIOChannelType.voltage.siFactor == nil)
    }

    @Test func milliUnitsAreDividedSoDecimalValuesComeOutExact() {
        #expect(IIOChannelType.temperature.si(fromABI: 25080) == 25.08)
        #expect(IIOChannelType.relativeHumidity.si(fromABI: 45641) == 45.641)
        #expect(IIOChannelType.pressure.si(fromABI: 100.653253906) == 100_653.253906)
        #expect(IIOChannelType.magneticField.si(fromABI: 0.146) == 14.6)
        #expect(IIOChannelType.timestamp.si(fromABI: 1_000_000_005) == 1.000000005)
        #expect(IIOChannelType.voltage.si(fromABI: 1) == nil)
    }
}

@Suite struct AttributeNumbers {
    @Test(
        "numbers written to sysfs are plain decimals without a useless fraction",
        arguments: [
            (100.0, "100"), (12.5, "12.5"), (0.625, "0.625"), (0.78125, "0.78125"), (1600, "1600"), (0, "0"),
            (1e-7, "0"), (-2.5, "-2.5"), (52.0000001, "52"), (3.1415926, "3.141593")
        ])
    func decimal(_ pair: (Double, String)) {
        #expect(IIOAttributeText.decimal(pair.0) == pair.1)
    }

    @Test func nonFiniteValuesHaveNoText() {
        #expect(IIOAttributeText.decimal(.nan) == nil)
        #expect(IIOAttributeText.decimal(.infinity) == nil)
        #expect(IIOAttributeText.decimal(1e300) == nil)
    }
}
