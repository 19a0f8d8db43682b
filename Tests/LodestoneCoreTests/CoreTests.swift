import Testing
@testable import LodestoneCore

@Suite struct QuaternionTests {
    @Test func hamiltonProductFollowsIJEqualsK() {
        let i = Quaternion(w: 0, x: 1, y: 0, z: 0), j = Quaternion(w: 0, x: 0, y: 1, z: 0)
        #expect(i * j == Quaternion(w: 0, x: 0, y: 0, z: 1))
        #expect(j * i == Quaternion(w: 0, x: 0, y: 0, z: -1))
    }

    @Test func rotationAboutUpTurnsEastIntoNorth() {
        let q = Quaternion(axis: Vector3(0, 0, 1), angleRad: .pi / 2)
        let v = q.rotate(Vector3(1, 0, 0))
        #expect(abs(v.x) < 1e-12 && abs(v.y - 1) < 1e-12 && abs(v.z) < 1e-12)
    }

    @Test func rotateMatchesRotationMatrixAndComposition() {
        let a = Quaternion(axis: Vector3(1, 2, 3), angleRad: 0.7)
        let b = Quaternion(axis: Vector3(-2, 0.5, 1), angleRad: -1.3)
        let v = Vector3(0.3, -1.2, 2.5)
        let viaMatrix = a.rotationMatrix * v
        #expect((viaMatrix - a.rotate(v)).length < 1e-12)
        #expect(((a * b).rotate(v) - a.rotate(b.rotate(v))).length < 1e-12)
        #expect(a.rotationMatrix.isRotation())
    }

    @Test func rotationVectorOfSmallAndLargeAnglesIsExact() {
        let r = Vector3(0.2, -0.1, 0.05)
        let q = Quaternion(rotationVector: r)
        #expect(abs(q.angularDistanceRad(to: .identity) - r.length) < 1e-12)
        let tiny = Quaternion(rotationVector: Vector3(1e-14, 0, 0))
        #expect(abs(tiny.norm - 1) < 1e-15)
    }

    /// Board frame: x right, y forward, z up. Heading is where +y points, clockwise from north.
    @Test(arguments: [0.0, 45.0, 90.0, 180.0, 270.0, 359.0])
    func headingIsWhereForwardPointsClockwiseFromNorth(_ headingDeg: Double) {
        // Turning clockwise seen from above is a negative rotation about Up.
        let q = Quaternion(axis: Vector3(0, 0, 1), angleRad: -Angle.radians(fromDegrees: headingDeg))
        let rph = q.rollPitchHeadingDeg
        #expect(abs(Angle.wrap180(rph.headingDeg - headingDeg)) < 1e-9)
        #expect(abs(rph.pitchDeg) < 1e-9 && abs(rph.rollDeg) < 1e-9)
    }

    @Test func pitchUpAndRollRightHaveTheDocumentedSigns() {
        // Nose up: rotate about +x (right) by +20°.
        let up = Quaternion(axis: Vector3(1, 0, 0), angleRad: Angle.radians(fromDegrees: 20)).rollPitchHeadingDeg
        #expect(abs(up.pitchDeg - 20) < 1e-9)
        // Right side down: rotate about +y (forward) by +30° takes +x towards −z.
        let roll = Quaternion(axis: Vector3(0, 1, 0), angleRad: Angle.radians(fromDegrees: 30)).rollPitchHeadingDeg
        #expect(abs(roll.rollDeg - 30) < 1e-9)
    }
}

@Suite struct BitsAndBytesTests {
    @Test func bitFieldExtractsAndInsertsWithoutTouchingOtherBits() {
        let f = BitField(mask: 0b0001_1100)
        #expect(f.shift == 2)
        #expect(f.extract(from: 0b1111_0111) == 0b101)
        #expect(f.inserting(0b010, into: 0b1110_0011) == 0b1110_1011)
        #expect(f.inserting(0xFF, into: 0) == 0b0001_1100)
    }

    @Test func byteVocabularyDecodesSignEndiannessAndWidth() {
        let bytes: [UInt8] = [0x70, 0x6B, 0xFF, 0x80, 0x65, 0x5A, 0xC0]
        bytes.withUnsafeBytes { b in
            #expect(Bytes.leU16(b, 0) == 27504)
            #expect(Bytes.leS16(b, 2) == -32513)
            #expect(Bytes.beS16(b, 2) == -128)
            #expect(Bytes.beU24(b, 4) == 0x655AC0)
            #expect(Bytes.beU20(b, 4) == 415148)
        }
    }

    @Test func errnoClassification() {
        #expect(BusError.kind(forErrno: 6) == .nack)
        #expect(BusError.kind(forErrno: 121) == .nack)
        #expect(BusError.kind(forErrno: 5) == .io)
        #expect(BusError.kind(forErrno: 110) == .timeout)
        #expect(BusError.kind(forErrno: 13) == .permissionDenied)
    }

    @Test func permissionErrorCarriesTheGroupHint() {
        let e = BusError(kind: .permissionDenied, bus: "/dev/i2c-1", errno: 13, operation: "open")
        #expect(e.description.contains("'i2c' group"))
        let n = BusError(kind: .nack, bus: "/dev/i2c-1", address: 0x76, register: 0xD0, errno: 121, operation: "read 1 byte")
        #expect(
            n.description
                == "/dev/i2c-1 address 0x76 register 0xD0 (read 1 byte): chip did not acknowledge (NACK): check wiring, power and the address [errno 121]"
        )
    }

    @Test func mountMatrixAppliesAsBoardEqualsMTimesChip() {
        let m = Matrix3(rowMajor: [0, -1, 0, 1, 0, 0, 0, 0, 1])!
        let r = SensorReading(accelerationMps2: Vector3(1, 2, 3)).mounted(by: m)
        #expect(r.accelerationMps2 == Vector3(-2, 1, 3))
        #expect(Matrix3(rowMajor: [1, 2]) == nil)
    }
}
