import BoardClient
import BoardCore
import BoardHub
import BoardStore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BoardServer

/// A node's lease life outside the hub: the renewal thread, the writer's fenced writes and lease
/// releases, and a real server on a `MemoryClusterStore` (other nodes are stores on the same
/// in-memory database).
@Suite struct ClusterNodeTests {
    static let demo = BoardID("demo")!

    /// A cluster store whose `renew` fails while `failing` is set.
    final class FlakyClusterStore: DelegatingStore, ClusterStore {
        let inner: MemoryClusterStore
        let failing = Mutex(false)
        let renewals = DispatchSemaphore(value: 0)

        init(_ inner: MemoryClusterStore) { self.inner = inner }

        func renew() throws(StoreError) -> Set<BoardID> {
            defer { renewals.signal() }
            if failing.withLock({ $0 }) { throw StoreError("connection refused", kind: .transient) }
            return try inner.renew()
        }
    }

    static func toggle(_ seq: Int) -> CommittedOp {
        CommittedOp(
            seq: seq, opID: OpID("op-\(seq)")!, by: UserID(number: 1), op: .toggle(item: ItemID("t1")!, on: true),
            time: UnixTime(milliseconds: 0))
    }

    /// Waits (at most `timeout` seconds) until `condition` holds; false if it never did.
    static func eventually(timeout: Double = 10, _ condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try condition()
    }

    /// Whether a close is the 1012 "board moved" one. libwebsockets 4.1.6, which the test
    /// client is built on, turns a received 1012, 1013 or 1014 into 1002 (ops-ws.c and
    /// client-parser-ws.c list them as invalid), so the reason says which it was.
    static func isMoved(_ close: (code: Int, reason: String)) -> Bool {
        (close.code == 1012 || close.code == 1002) && close.reason == "board moved to another node; reconnect"
    }

    // MARK: The renewal thread

    @Test func theRenewalThreadReportsTheHeldLeasesTheirTimeAndTheLiveNodes() throws {
        let database = MemoryClusterDatabase()
        let a = MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1", leaseSeconds: 3)
        _ = MemoryClusterStore(database: database, node: "b", advertise: "127.0.0.1:2", leaseSeconds: 3)
        _ = try a.claim(Self.demo, force: false)
        let reports = Reports()
        let keeper = LeaseKeeper(store: a, log: Logger(level: .error)) { reports.post($0) }
        let before = Clock.now()
        keeper.start()
        let event = reports.next()
        let after = Clock.now()
        keeper.stop()
        guard case .leases(let held, let validUntil, let alive) = event else {
            Issue.record("expected leases, got \(String(describing: event))")
            return
        }
        #expect(held == [Self.demo])
        #expect(alive == ["a", "b"])
        #expect(validUntil >= before + 3_000 && validUntil <= after + 3_000, "the renewal's start plus one lease")
    }

    @Test func aRenewalThatFailsPostsNothingAndTheNextThatWorksDoes() throws {
        let database = MemoryClusterDatabase()
        let store = FlakyClusterStore(
            MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1", leaseSeconds: 0.3))
        store.failing.withLock { $0 = true }
        let reports = Reports()
        let keeper = LeaseKeeper(store: store, log: Logger(level: .error)) { reports.post($0) }
        keeper.start()
        for _ in 0..<3 { #expect(store.renewals.wait(timeout: .now() + 10) == .success) }
        #expect(reports.next(timeout: 0) == nil, "failed renewals post nothing")
        store.failing.withLock { $0 = false }
        guard case .leases(let held, _, let alive) = reports.next() else {
            Issue.record("no leases once renewing works again")
            keeper.stop()
            return
        }
        #expect(held.isEmpty && alive == ["a"])
        keeper.stop()
    }

    @Test func theKeeperIsLapsedWhileNoRenewalWorkedForALease() async throws {
        let database = MemoryClusterDatabase()
        let store = FlakyClusterStore(
            MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1", leaseSeconds: 0.3))
        let reports = Reports()
        let keeper = LeaseKeeper(store: store, log: Logger(level: .error)) { reports.post($0) }
        keeper.start()
        #expect(reports.next() != nil, "the first renewal works")
        // The database away (or not committing): after a lease without a renewal, /readyz says so.
        store.failing.withLock { $0 = true }
        #expect(await Self.eventually { keeper.lapsed })
        // Back: the next renewal that works clears it.
        store.failing.withLock { $0 = false }
        #expect(await Self.eventually { !keeper.lapsed })
        keeper.stop()
    }

    // MARK: The writer

    @Test func aFencedWriteIsNotRetriedAndIsReportedAsFenced() throws {
        let database = MemoryClusterDatabase()
        let a = MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1")
        let b = MemoryClusterStore(database: database, node: "b", advertise: "127.0.0.1:2")
        let other = BoardID("other")!
        _ = try a.claim(Self.demo, force: false)
        _ = try a.claim(other, force: false)
        _ = try b.claim(Self.demo, force: true)
        let reports = Reports()
        let persister = Persister(store: a, cluster: a, log: Logger(level: .error), stopRetry: .seconds(1)) {
            reports.post($0)
        }
        persister.submit(.create(.defaultTemplate(id: Self.demo)), ticket: Ticket(1))
        persister.submit(.create(.defaultTemplate(id: other)), ticket: Ticket(2))
        persister.start()
        var failed: [Hub.WriteFailure] = []
        var durable: [Ticket] = []
        for _ in 0..<2 {
            switch reports.next() {
            case .writeFailed(let failure): failed.append(failure)
            case .durable(_, let tickets): durable += tickets
            case let event: Issue.record("unexpected \(String(describing: event))")
            }
        }
        persister.stop()
        #expect(failed.map(\.board) == [Self.demo] && failed.first?.kind == .fenced)
        #expect(failed.first?.tickets == [Ticket(1)])
        #expect(durable == [Ticket(2)], "the other board of the batch is written on its own")
        #expect(try b.exists(Self.demo) == false)
    }

    @Test func aReleaseRunsAfterTheWritesQueuedBeforeItAndIsReported() throws {
        let database = MemoryClusterDatabase()
        let a = MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1")
        _ = try a.claim(Self.demo, force: false)
        let reports = Reports()
        let persister = Persister(store: a, cluster: a, log: Logger(level: .error), stopRetry: .seconds(1)) {
            reports.post($0)
        }
        // Queued before the thread starts, so that the writer takes them at once.
        persister.submit(.create(.defaultTemplate(id: Self.demo)))
        persister.submit(.append(Self.demo, [Self.toggle(1)]))
        persister.submit(.release(Self.demo))
        persister.submit(.append(Self.demo, [Self.toggle(2)]))
        persister.start()
        guard case .durable(let seqs, _) = reports.next() else {
            Issue.record("no durable")
            return
        }
        #expect(seqs == [Self.demo: 1])
        guard case .released(let board) = reports.next() else {
            Issue.record("no released")
            return
        }
        #expect(board == Self.demo)
        guard case .writeFailed(let failure) = reports.next() else {
            Issue.record("no failure")
            return
        }
        #expect(failure.kind == .fenced, "a write after the release is fenced")
        persister.stop()
        #expect(try a.owner(of: Self.demo) == nil)
        #expect(try a.load(Self.demo, recentLimit: 0)?.seq == 1)
    }

    // MARK: A node

    @Test func aNodeClaimsTheBoardsItServesNamesTheOwnerAndListsTheCluster() async throws {
        let database = MemoryClusterDatabase()
        let store = MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1", leaseSeconds: 30)
        // b never renews: it counts as alive for one of its leases from here, long enough for a
        // server's start and a join on a loaded machine (30 s was not, once).
        let b = MemoryClusterStore(database: database, node: "b", advertise: "127.0.0.1:2", leaseSeconds: 600)
        try await withTestServer(store: store) { server in
            let (client, _) = try await server.join("demo", as: "Ada")
            #expect(try b.owner(of: Self.demo) == "a")
            client.send(#"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
            try await client.expect("toggle")
            let board = try server.http("GET", "/api/boards/demo")
            #expect(board.status == 200 && board.body.contains(#""owner":"a""#))
            _ = try b.claim(BoardID("elsewhere")!, force: false)
            try b.write([.create(.defaultTemplate(id: BoardID("elsewhere")!))])
            let there = try server.http("GET", "/api/boards/elsewhere")
            #expect(there.status == 200 && there.body.contains(#""owner":"b""#))
            let cluster = try server.http("GET", "/api/cluster")
            #expect(cluster.status == 200)
            #expect(
                cluster.body == #"{"node":"a","nodes":[{"name":"a","advertise":"127.0.0.1:1","alive":true,"boards":1},"#
                    + #"{"name":"b","advertise":"127.0.0.1:2","alive":true,"boards":1}]}"#)
            client.close()
        }
    }

    @Test func aNodeWhoseLeaseIsTakenClosesItsClientsWith1012AndItsUnstoredOpIsNeverBroadcast() async throws {
        let database = MemoryClusterDatabase()
        let store = MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1", leaseSeconds: 30)
        let b = MemoryClusterStore(database: database, node: "b", advertise: "127.0.0.1:2", leaseSeconds: 30)
        try await withTestServer({ $0.hub.logLevel = .error }, store: store) { server in
            let (client, _) = try await server.join("demo", as: "Ada")
            client.send(#"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
            try await client.expect("toggle")
            // Another node takes the board (as a DELETE there would): this node's next write is fenced.
            _ = try b.claim(Self.demo, force: true)
            client.send(#"{"type":"toggle","op":"o2","base":1,"item":"t2","on":true}"#)
            // Everything up to the close: a timeout or a frame that is not JSON fails the test.
            var seen: [JSON] = []
            reading: while true {
                do {
                    seen.append(try await client.next(timeout: .seconds(10)))
                } catch ClientError.closed {
                    break reading
                }
            }
            let types = seen.map { $0["type"]?.stringValue ?? "?" }
            #expect(!types.contains("toggle"), "the fenced op was never broadcast")
            let error = try #require(
                seen.first { $0["type"]?.stringValue == "error" }, "no error before the close: \(types)")
            #expect(error["code"]?.stringValue == "unavailable" && error["op"]?.stringValue == "o2")
            let close = try await client.connection.waitForClose(timeout: .seconds(10))
            #expect(Self.isMoved(close))
            #expect(try b.load(Self.demo, recentLimit: 0)?.seq == 1)
        }
    }

    @Test func aNodeDropsItsBoardsWhenItsLeaseIsNotRenewed() async throws {
        let database = MemoryClusterDatabase()
        let store = MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1", leaseSeconds: 0.6)
        let b = MemoryClusterStore(database: database, node: "b", advertise: "127.0.0.1:2", leaseSeconds: 0.6)
        try await withTestServer({ $0.hub.logLevel = .error }, store: store) { server in
            let (client, _) = try await server.join("demo", as: "Ada")
            _ = try b.claim(Self.demo, force: true)
            // The next renewal (every 200 ms) does not hold the board.
            let close = try await client.connection.waitForClose(timeout: .seconds(10))
            #expect(Self.isMoved(close))
        }
    }

    @Test func aNodeReleasesABoardItEvictsAndEveryLeaseWhenItStops() async throws {
        let database = MemoryClusterDatabase()
        let store = MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1", leaseSeconds: 30)
        let b = MemoryClusterStore(database: database, node: "b", advertise: "127.0.0.1:2", leaseSeconds: 30)
        try await withTestServer(store: store) { server in
            let (first, _) = try await server.join("first", as: "Ada")
            first.send(#"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
            try await first.expect("toggle")
            first.close()
            #expect(try await Self.eventually { try b.owner(of: BoardID("first")!) == nil })
            #expect(try b.claim(BoardID("first")!, force: false) == .mine(epoch: 2))
            try b.release(BoardID("first")!)
            let (second, _) = try await server.join("second", as: "Bo")
            second.send(#"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
            try await second.expect("toggle")
            #expect(try b.owner(of: BoardID("second")!) == "a")
        }
        // Stopped: the board its client was still on was released after its last write.
        #expect(try b.owner(of: BoardID("second")!) == nil)
        #expect(try b.load(BoardID("second")!, recentLimit: 0)?.seq == 1)
    }
}
