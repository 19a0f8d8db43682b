import LodestoneDaemon
import Testing

@Suite struct DaemonDefaultsTests {
    @Test func defaultsAreTheDocumentedOnes() {
        #expect(DaemonDefaults.socketPath == "/run/lodestone/lodestone.sock")
        #expect(DaemonDefaults.gpsdListen == ["127.0.0.1:2947", "[::1]:2947"])
    }
}
