internal import BoardCore
internal import BoardStore

/// The revoked tokens the hub knows of, as last loaded from the store.
struct RevocationList {
    /// The most revocations in force at once (a `POST` past it gets 507): each is kept only
    /// until its token would have expired, and only admins make them, but a table a client can
    /// grow is bounded all the same.
    static let maximum = 100_000
    /// How often the store is asked again, in milliseconds: the bound on how late a revocation
    /// made on another node (or by `shuffleboard revoke`) closes this node's sessions.
    static let reloadEvery: Int64 = 1_000

    /// In force: the last load, and those made on this node that it did not show yet.
    private(set) var inForce: RevocationSet
    /// The fingerprint of the last load: a load with the same one, and nothing made here since,
    /// changes nothing (the usual case, once a second), and costs the service thread nothing.
    private var loadedFingerprint: UInt64
    /// Made on this node and not yet seen in a load (whose read may have raced the write).
    private var made: [String: Revocation] = [:]
    /// A reload is out.
    var loading = false
    /// How many reloads were asked for: the number of the newest.
    var asked = 0
    /// When the last reload was asked for.
    var lastAsked: Instant?

    /// The list the server started with.
    init(_ revoked: [Revocation] = []) {
        inForce = RevocationSet(revoked)
        loadedFingerprint = inForce.fingerprint
    }

    /// Takes a load's answer at `nowSeconds`; false when nothing changed.
    mutating func loaded(_ set: RevocationSet, nowSeconds: Int64) -> Bool {
        if set.fingerprint == loadedFingerprint && made.isEmpty { return false }
        var next = set
        for (id, revocation) in made {
            if set[id] != nil || revocation.until <= nowSeconds {
                made[id] = nil
            } else {
                next.insert(revocation)
            }
        }
        loadedFingerprint = set.fingerprint
        inForce = next
        return true
    }

    /// Takes a revocation made on this node (durable already).
    mutating func made(_ revocation: Revocation) {
        inForce.insert(revocation)
        made[revocation.id] = revocation
    }
}
