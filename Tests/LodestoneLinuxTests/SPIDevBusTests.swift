import CLodestoneLinux
import Glibc
import LodestoneCore
import Testing
@testable import LodestoneLinux

/// SPIDevBus without hardware: the `spi_ioc_transfer` records it hands to `SPI_IOC_MESSAGE` (linux/spi/spidev.h),
/// and its errors. The real ioctl path runs against the kernel's spidev in the QEMU guest (`KernelSPIStub`).
@Suite struct SPIDevBusTests {
    @Test func aReadIsTheCommandByteOutThenTheDataInWithChipSelectHeld() {
        var command: UInt8 = 0xF5
        var buffer = [UInt8](repeating: 0, count: 14)
        buffer.withUnsafeMutableBytes { data in
            withUnsafePointer(to: &command) { commandPointer in
                withUnsafeTemporaryAllocation(of: spi_ioc_transfer.self, capacity: 2) { t in
                    SPIDevBus.fillRead(t, command: commandPointer, buffer: data, speedHz: 1_000_000)
                    #expect(t[0].tx_buf == UInt64(UInt(bitPattern: commandPointer)) && t[0].rx_buf == 0 && t[0].len == 1)
                    #expect(t[1].tx_buf == 0 && t[1].rx_buf == UInt64(UInt(bitPattern: data.baseAddress)) && t[1].len == 14)
                    #expect(t[0].speed_hz == 1_000_000 && t[1].speed_hz == 1_000_000)
                    #expect(t[0].bits_per_word == 8 && t[1].bits_per_word == 8)
                    #expect(t[0].cs_change == 0 && t[1].cs_change == 0 && t[0].delay_usecs == 0)
                }
            }
        }
    }

    @Test func aWriteIsOneTransferOfCommandAndData() {
        let message: [UInt8] = [0x6B, 0x80]
        message.withUnsafeBytes { m in
            withUnsafeTemporaryAllocation(of: spi_ioc_transfer.self, capacity: 1) { t in
                SPIDevBus.fillWrite(t, message: m, speedHz: 500_000)
                #expect(t[0].tx_buf == UInt64(UInt(bitPattern: m.baseAddress)) && t[0].rx_buf == 0 && t[0].len == 2)
                #expect(t[0].speed_hz == 500_000 && t[0].bits_per_word == 8)
            }
        }
    }

    @Test func theTransferRecordHasTheKernelsLayout() {
        // struct spi_ioc_transfer is 32 bytes: two u64 buffers, len, speed_hz, delay_usecs, bits_per_word, cs_change,
        // tx_nbits, rx_nbits, word_delay_usecs, pad (linux/spi/spidev.h). SPI_IOC_MESSAGE(n) encodes n × 32.
        #expect(MemoryLayout<spi_ioc_transfer>.size == 32)
    }

    @Test func aMissingDeviceSaysSPIIsNotEnabled() {
        #expect {
            _ = try SPIDevBus(path: "/dev/spidev-lodestone-missing9.9", framing: .readBit7)
        } throws: { error in
            guard let e = error as? BusError else { return false }
            return e.kind == .noSuchBus && e.errno == ENOENT && e.description.contains("dtparam=spi=on")
        }
    }

    @Test func aNodeThatIsNotSpidevFailsTheModeIoctl() {
        #expect {
            _ = try SPIDevBus(path: "/dev/null", framing: .readBit7)
        } throws: { error in
            guard let e = error as? BusError else { return false }
            return e.errno == ENOTTY && e.operation.contains("SPI_IOC_WR_MODE") && e.operation.contains("not a spidev device")
        }
    }

    @Test func permissionErrorsNameTheSPIGroup() {
        let e = BusError(kind: .permissionDenied, bus: "/dev/spidev0.1", errno: EACCES)
        #expect(e.description.contains("'spi' group"))
    }

    @Test func spidevNodesAreListedInBusThenChipSelectOrder() throws {
        let dir = "/tmp/lodestone-spidev-\(getpid())"
        mkdir(dir, 0o755)
        defer { for n in ["spidev0.10", "spidev0.2", "spidev1.0", "spidevX", "i2c-1"] { unlink("\(dir)/\(n)") }; rmdir(dir) }
        for n in ["spidev0.10", "spidev0.2", "spidev1.0", "spidevX", "i2c-1"] {
            close(open("\(dir)/\(n)", O_CREAT | O_WRONLY, 0o644))
        }
        #expect(SPIDevBus.availableBuses(in: dir) == ["\(dir)/spidev0.2", "\(dir)/spidev0.10", "\(dir)/spidev1.0"])
    }
}
