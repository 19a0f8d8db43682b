// LodestoneEngine re-exports the targets split out of it (issue 14), as swift-nio's `NIO` re-exports `NIOCore`: code
// that imported LodestoneEngine for the trace, fusion, source or GNSS source types keeps compiling, and so do the
// files of this target that use them without importing them (the wire messages).
@_exported import LodestoneFusion
@_exported import LodestoneGNSSSources
@_exported import LodestoneSources
@_exported import LodestoneTrace
@_exported import LodestoneService
