/// Which origins may open a WebSocket or write through the API (`--allow-origin`). Browsers
/// name the page's origin in `Origin` on every WebSocket upgrade and every cross-site (or
/// non-GET) request; other clients usually send none.
package struct OriginPolicy: Equatable, Sendable {
    /// The origins allowed (`https://board.example`, compared exactly); empty: any.
    package var allowed: [String] = []

    /// A policy.
    package init(allowed: [String] = []) {
        self.allowed = allowed
    }

    /// Whether a WebSocket upgrade with this `Origin` (nil: none) may go on: when origins are
    /// listed, only with one of them.
    package func allowsUpgrade(from origin: String?) -> Bool {
        guard !allowed.isEmpty else { return true }
        guard let origin else { return false }
        return allowed.contains(origin)
    }

    /// Whether an API write with this `Origin` (nil: none) may go on. A write without `Origin`
    /// comes from no browser page (browsers send it with every POST, PUT, PATCH and DELETE), so
    /// it is not a cross-site request; the content type rule keeps forms and `no-cors` fetches out.
    package func allowsWrite(from origin: String?) -> Bool {
        guard !allowed.isEmpty, let origin else { return true }
        return allowed.contains(origin)
    }
}
