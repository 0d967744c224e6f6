/// Which origins may open a WebSocket or write through the API (`--allow-origin`,
/// `--allow-no-origin`). Browsers name the page's origin in `Origin` on every WebSocket upgrade
/// and every cross-site (or non-GET) request; other clients usually send none.
package struct OriginPolicy: Equatable, Sendable {
    /// The origins allowed (`https://board.example`, compared exactly); empty: any.
    package var allowed: [String] = []
    /// With `allowed` set: whether a WebSocket upgrade without `Origin` (a client that is not a
    /// browser) is allowed too.
    package var allowMissing = false

    /// A policy.
    package init(allowed: [String] = [], allowMissing: Bool = false) {
        self.allowed = allowed
        self.allowMissing = allowMissing
    }

    /// Whether a WebSocket upgrade with this `Origin` (nil: none) may go on. Without `Origin` it is
    /// refused when origins are listed unless `allowMissing`: a browser always sends it, and a
    /// `Sec-WebSocket-Origin` (an old draft's header) stands for nothing.
    package func allowsUpgrade(from origin: String?) -> Bool {
        guard !allowed.isEmpty else { return true }
        guard let origin else { return allowMissing }
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
