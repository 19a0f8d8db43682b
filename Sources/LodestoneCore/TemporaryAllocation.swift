// The standard library's `withUnsafeTemporaryAllocation` with the body's error type kept. Swift 6.0's (Debian 13's
// `swiftlang`) is `rethrows`, so a `throws(BusError)` body comes out as `any Error`; 6.1 and newer throw the body's type.
// The root package builds with both (README), so the drivers and buses call these instead: the same stack memory (the
// standard library's call is inlined here, and these are inlined into their callers), the same error.

/// Calls `body` with `byteCount` bytes of uninitialized temporary memory, aligned to `alignment` bytes, on the stack
/// where the standard library can put it (`withUnsafeTemporaryAllocation(byteCount:alignment:_:)`), and rethrows the
/// body's error with its own type. The buffer is valid only during `body`.
@inlinable
public func withTemporaryBytes<Value, Failure: Error>(
    byteCount: Int, alignment: Int, _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Value
) throws(Failure) -> Value {
    let outcome = withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: alignment) { raw in
        Result { () throws(Failure) -> Value in try body(raw) }
    }
    return try outcome.get()
}

/// Calls `body` with uninitialized temporary memory for `capacity` values of `type`
/// (`withUnsafeTemporaryAllocation(of:capacity:_:)`), and rethrows the body's error with its own type. The buffer is
/// valid only during `body`.
@inlinable
public func withTemporaryBuffer<Element, Value, Failure: Error>(
    of type: Element.Type, capacity: Int, _ body: (UnsafeMutableBufferPointer<Element>) throws(Failure) -> Value
) throws(Failure) -> Value {
    let outcome = withUnsafeTemporaryAllocation(of: type, capacity: capacity) { buffer in
        Result { () throws(Failure) -> Value in try body(buffer) }
    }
    return try outcome.get()
}
