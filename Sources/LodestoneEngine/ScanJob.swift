import LodestoneCore
import LodestoneDrivers
import LodestoneLinux

/// `lodestone scan`: probes I2C buses at the addresses known chips use, identifies them by their ID
/// registers (reads only, never writes), lists kernel IIO devices, and drafts a board file.
public struct ScanJob {
    public var i2cBuses: [String]
    public var iio: Bool
    public var iioURI: String

    public init(i2cBuses: [String], iio: Bool, iioURI: String = "local:") {
        self.i2cBuses = i2cBuses; self.iio = iio; self.iioURI = iioURI
    }

    /// One thing found.
    public struct Finding: Sendable, Hashable {
        public var bus: BoardDescription.BusLocation
        public var address: UInt8?
        public var chip: String?
        public var detail: String
    }

    /// Scans. Bus-level problems (permission, missing bus) are reported as lines in `problems`, and the scan
    /// goes on with the other buses.
    public func scan() -> (findings: [Finding], problems: [String]) {
        var findings: [Finding] = []
        var problems: [String] = []
        let candidates = Array(Set(ChipCatalog.entries.flatMap(\.addresses))).sorted()
        for path in i2cBuses {
            let bus: I2CDevBus
            do { bus = try I2CDevBus(path: path) } catch { problems.append(error.description); continue }
            for address in candidates where bus.isPresent(address: address) {
                if let id = ChipCatalog.identify(bus: bus, address: address) {
                    // A chip recognised by its PROM (the MS5611) has no ID value to show.
                    let how = ChipCatalog.entry(named: id.chip)?.signature == .ms5611PROM ? "PROM CRC-4 valid" : "ID \(hex(id.idValue))"
                    findings.append(Finding(bus: .i2c(path: path), address: address, chip: id.chip,
                                            detail: "\(id.chip) (\(how))"))
                } else {
                    findings.append(Finding(bus: .i2c(path: path), address: address, chip: nil, detail: "a device answers, not identified"))
                }
            }
            problems.append(contentsOf: bus.notes)
        }
        if iio {
            do {
                let context = try IIOContext(uri: iioURI)
                for d in context.devices {
                    let kinds = d.kinds
                    findings.append(Finding(bus: .iio(device: d.name ?? d.id, uri: iioURI), address: nil,
                                            chip: kinds.isEmpty ? nil : "iio",
                                            detail: "\(d.id) \(d.name ?? "(no name)"): " + (kinds.isEmpty ? "no motion/baro/mag channels" : kinds.map(\.rawValue).joined(separator: ", "))))
                }
            } catch { problems.append(error.description) }
        }
        return (findings, problems)
    }

    /// A draft board file for what was identified (JSON text).
    public static func draftBoard(_ findings: [Finding]) -> String {
        var entries: [String] = []
        var used: [String: Int] = [:]
        for f in findings {
            guard let chip = f.chip else { continue }
            // Name and rate by what the chip measures (the catalog's kinds): an IMU, a barometer or a magnetometer.
            let kinds = ChipCatalog.entry(named: chip)?.kinds ?? []
            let base: String = if chip == "iio" { "iio" } else if kinds.contains(.accelerometer) { "imu" }
                else if kinds.contains(.barometer) { "baro" } else if kinds.contains(.magnetometer) { "mag" } else { "imu" }
            let n = used[base, default: 0]
            used[base] = n + 1
            let id = n == 0 ? base : "\(base)\(n + 1)"
            let rate = base == "baro" ? 25 : (base == "mag" ? 40 : 100)
            switch f.bus {
            case .i2c(let path):
                entries.append("    { \"id\": \"\(id)\", \"chip\": \"\(chip)\", \"bus\": { \"i2c\": \"\(path)\" }, \"address\": \"\(f.address.map(hex) ?? "")\", \"rateHz\": \(rate) }")
            case let .iio(device, uri):
                entries.append("    { \"id\": \"\(id)\", \"chip\": \"iio\", \"bus\": { \"iio\": \"\(device)\", \"uri\": \"\(uri)\" }, \"rateHz\": \(rate) }")
            case .simulated: continue
            }
        }
        return """
        {
          "format": "\(BoardDescription.formatTag)",
          "name": "Scanned board",
          "description": "Drafted by lodestone scan: check each mount matrix against how the chips sit on your board.",
          "sensors": [
        \(entries.joined(separator: ",\n"))
          ]
        }
        """
    }
}
