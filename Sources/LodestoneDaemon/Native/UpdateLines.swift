import LodestoneCore
import LodestoneService

/// The native protocol's `UPDATE` lines, each update encoded once for all the subscriptions that get it.
///
/// Every subscriber of a kind with the same settings gets the same update at a step (200 clients subscribed to headings
/// get one `HeadingUpdate` 200 times), and their lines differ only in the subscription's id. So the JSON of the newest
/// update of each type is kept: a subscription's stream that gets an equal update takes it and writes its own line
/// around it (`{"class":"UPDATE","id":…,"heading":…}`, the members of `NativeProtocol.Update` with `class` and `id`
/// first); one that gets another update (a reduced-accuracy location, another heading filter) encodes it and keeps that
/// instead. JSON encoding was most of the daemon's cost per update and client (benchmarks/daemon/results.md).
final class UpdateLines: Sendable {
    /// Per update type: the newest update encoded, and its JSON.
    private let newest = Locked<[ObjectIdentifier: any Sendable]>([:])

    /// The `UPDATE` line (with its end) of subscription `id` carrying `element` as `member` (`location`, `heading`, …:
    /// the member of `NativeProtocol.Update` for its kind). It decodes to the same `NativeProtocol.Update` as
    /// `NativeProtocol.line` of that update. Two updates that are `==` but would print differently (a 0 and a −0) share
    /// the first one's text.
    func line<E: Sendable & Equatable & Encodable>(id: Int, member: String, element: E) -> String {
        let key = ObjectIdentifier(E.self)
        var json = newest.withLock { entries -> Substring? in
            guard let (e, json) = entries[key] as? (E, Substring), e == element else { return nil }
            return json
        }
        if json == nil {
            let encoded = NativeProtocol.line(element).dropLast() // without its line end
            newest.withLock { $0[key] = (element, encoded) }
            json = encoded
        }
        return #"{"class":"UPDATE","id":"# + String(id) + #",""# + member + #"":"# + (json ?? "null") + "}\n"
    }
}
