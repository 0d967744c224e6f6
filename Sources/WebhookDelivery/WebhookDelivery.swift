package import BoardCore
internal import BoardHooks
package import BoardStore
import Foundation
import Synchronization

/// Webhook delivery: a thread of its own ("shuffleboard-webhooks") that owns every webhook's
/// `HookMachine`, carries out their actions — reads of the op log and cursor writes against the
/// store, POSTs through libcurl's multi interface (`CurlTransfers`) — and feeds the results back.
///
/// Nothing here runs on the service thread: the server only tells it, through `committed` and
/// `changed` (a lock held for a dictionary update, and `curl_multi_wakeup` when the hint can
/// change something), that a board's ops
/// are durable up to a seq or that a webhook was made, removed or enabled. Those hints are kept
/// as one seq per board and one id per webhook, however many come, so no queue grows with a
/// slow receiver: each machine reads its next batch from the store, after its durable cursor.
///
/// In a cluster only the board's owner delivers: before each read of the log the machine's
/// board's lease is looked up, and a node that does not hold it leaves the webhook dormant
/// until it commits an op of that board itself (having claimed it).
package final class WebhookDelivery: Sendable {
    fileprivate struct Hints {
        var committed: [BoardID: Seq] = [:]
        var changed: Set<String> = []
        var stopping = false
        /// A wake-up is on its way and the thread has not taken the hints since: another would
        /// add nothing.
        var woken = false
        /// What the delivery thread last said (`publish`): the boards it has a webhook machine
        /// for, and the boards it read and found none for, until when that read is current. A
        /// board in neither is worth a wake-up; one only in `quietUntil` is not, until then.
        var hooked: Set<BoardID> = []
        var quietUntil: [BoardID: ContinuousClock.Instant] = [:]
    }

    private let store: any BoardStore
    private let hooks: any WebhookStore
    private let cluster: (any ClusterStore)?
    private let warn: @Sendable (String) -> Void
    private let hints = Mutex(Hints())
    private nonisolated(unsafe) let transfers: CurlTransfers
    private let finished = DispatchSemaphore(value: 0)
    private let running = Mutex(false)

    /// Delivery of the webhooks `capabilities.webhooks` keeps, or nil when the store keeps none
    /// or libcurl cannot start. `allowPrivate`: `--webhook-allow-private`.
    package init?(
        _ capabilities: StoreCapabilities, allowPrivate: Bool, warn: @escaping @Sendable (String) -> Void
    ) {
        guard let hooks = capabilities.webhooks, let transfers = CurlTransfers(allowPrivate: allowPrivate) else {
            return nil
        }
        store = capabilities.store
        self.hooks = hooks
        cluster = capabilities.cluster
        self.warn = warn
        self.transfers = transfers
    }

    /// Starts the thread, which loads every enabled webhook and delivers from each one's cursor.
    package func start() {
        running.withLock { $0 = true }
        let thread = Thread { [self] in
            var loop = DeliveryLoop(delivery: self)
            loop.run()
            finished.signal()
        }
        thread.name = "shuffleboard-webhooks"
        thread.start()
    }

    /// Stops the thread (POSTs in flight are dropped: their batches go again from the cursor).
    package func stop() {
        guard running.withLock({ $0 }) else { return }
        hints.withLock { $0.stopping = true }
        transfers.wake()
        finished.wait()
        running.withLock { $0 = false }
    }

    /// These boards' ops are durable up to these seqs (from any thread; never waits for I/O).
    /// Called for every durable write, so it wakes the delivery thread only when the hint can
    /// change something: for a board with a webhook here, or one whose webhooks were not read
    /// within `lookEvery` (another node may have made one). Anything else the thread would take
    /// and drop — and waking it for each write cost the service thread a system call and the two
    /// cores a thread switch per committed batch.
    package func committed(_ seqs: [BoardID: Seq]) {
        let now = ContinuousClock.now
        let wake = hints.withLock { hints in
            var useful = false
            for (board, seq) in seqs {
                if !hints.hooked.contains(board), let until = hints.quietUntil[board], now < until { continue }
                hints.committed[board] = max(hints.committed[board] ?? 0, seq)
                useful = true
            }
            return Self.shouldWake(useful, &hints)
        }
        if wake { transfers.wake() }
    }

    /// The webhook `id` was made, removed or enabled (from any thread).
    package func changed(_ id: String) {
        let wake = hints.withLock { hints in
            // Bounded: ids come from the REST API one request at a time, and are taken each pass.
            let added = hints.changed.insert(id).inserted
            // Until the thread has the machine and says so, every board's ops wake it.
            hints.quietUntil.removeAll()
            return Self.shouldWake(added, &hints)
        }
        if wake { transfers.wake() }
    }

    /// Whether to wake the thread for a hint: when it is `useful` and no wake-up is on its way.
    private static func shouldWake(_ useful: Bool, _ hints: inout Hints) -> Bool {
        guard useful, !hints.woken else { return false }
        hints.woken = true
        return true
    }

    fileprivate func take() -> Hints {
        hints.withLock { hints in
            let taken = hints
            hints.committed.removeAll()
            hints.changed.removeAll()
            hints.woken = false
            return taken
        }
    }

    /// The delivery thread's view after a pass (`Hints.hooked`, `quietUntil`). A webhook change
    /// that came in meanwhile keeps every board awake until the next pass has taken it.
    fileprivate func publish(hooked: Set<BoardID>, quietUntil: [BoardID: ContinuousClock.Instant]) {
        hints.withLock { hints in
            hints.hooked = hooked
            hints.quietUntil = hints.changed.isEmpty ? quietUntil : [:]
        }
    }

    /// The loop of the delivery thread: the machines, and the store and network work they ask for.
    private struct DeliveryLoop {
        let delivery: WebhookDelivery
        var machines: [String: HookMachine] = [:]
        /// When each board's webhooks were last read from the store (`look`).
        var looked: [BoardID: ContinuousClock.Instant] = [:]
        /// How long a board's webhooks read from the store count as current.
        static let lookEvery = Duration.seconds(5)

        init(delivery: WebhookDelivery) { self.delivery = delivery }

        mutating func run() {
            do {
                for hook in try delivery.hooks.activeWebhooks() { add(hook) }
            } catch {
                delivery.warn("webhooks: cannot read the webhooks (\(error.message)); each starts at its next change")
            }
            while true {
                let hints = delivery.take()
                if hints.stopping { return }
                for id in hints.changed { reload(id) }
                for (board, seq) in hints.committed {
                    look(board)
                    for id in machines.keys where machines[id]?.hook.board == board { handle(id, .committed(seq)) }
                }
                for id in Array(machines.keys) { handle(id, .tick) }
                publish()
                for (id, outcome) in delivery.transfers.run(waiting: nextWait()) { handle(id, .answered(outcome)) }
            }
        }

        /// Tells the hints which boards have a machine here and which were read and found none
        /// (until their read is `lookEvery` old): their durable ops need not wake the thread.
        private func publish() {
            let hooked = Set(machines.values.map(\.hook.board))
            var quiet: [BoardID: ContinuousClock.Instant] = [:]
            for (board, last) in looked where !hooked.contains(board) { quiet[board] = last + Self.lookEvery }
            delivery.publish(hooked: hooked, quietUntil: quiet)
        }

        /// Until the next retry is due, at most a second.
        private func nextWait() -> Int {
            let now = ContinuousClock.now
            var wait = Duration.seconds(1)
            for machine in machines.values {
                if case .backingOff(let until) = machine.phase { wait = min(wait, max(.zero, until - now)) }
            }
            return Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000) + 1
        }

        /// Reads the board's webhooks from the store when it has not for `lookEvery`: one made
        /// (or enabled) on another node of a cluster is found so, once this node commits the
        /// board's ops or loads it. At most one read per board per `lookEvery`.
        private mutating func look(_ board: BoardID) {
            let now = ContinuousClock.now
            if let last = looked[board], now - last < Self.lookEvery { return }
            if looked.count >= 4096 { looked = looked.filter { now - $0.value < Self.lookEvery } }
            looked[board] = now
            let stored: [Webhook]
            do {
                stored = try delivery.hooks.webhooks(of: board)
            } catch {
                return delivery.warn("webhooks: cannot read board \(board)'s webhooks (\(error.message))")
            }
            for hook in stored where !hook.status.disabled {
                if let machine = machines[hook.id], machine.phase != .disabled { continue }
                add(hook)
            }
        }

        private mutating func add(_ hook: Webhook) {
            machines[hook.id] = HookMachine(hook)
            handle(hook.id, .start)
        }

        private mutating func reload(_ id: String) {
            let stored: Webhook?
            do {
                stored = try delivery.hooks.webhook(id)
            } catch {
                return delivery.warn("webhooks: cannot read webhook \(id) (\(error.message))")
            }
            guard let hook = stored else {
                delivery.transfers.cancel(hook: id)
                machines[id] = nil
                return
            }
            // Made, or enabled again: a machine from the stored cursor (one that is delivering
            // already goes on as it is).
            if let machine = machines[id], machine.phase != .disabled { return }
            delivery.transfers.cancel(hook: id)
            add(hook)
        }

        /// Hands `event` to the machine and carries out its actions (and those they lead to).
        private mutating func handle(_ id: String, _ event: HookMachine.Event) {
            var events = [event]
            while !events.isEmpty {
                let next = events.removeFirst()
                guard var machine = machines[id] else { return }
                let actions = machine.handle(next, now: .now, wall: Int64(Date().timeIntervalSince1970))
                machines[id] = machine
                for action in actions {
                    switch action {
                    case .read(let since): events.append(.read(read(machine.hook, since: since)))
                    case .post(let post):
                        if let problem = delivery.transfers.start(post, hook: id) {
                            events.append(.answered(.failed(problem)))
                        }
                    case .record(let delivered, let status):
                        do {
                            try delivery.hooks.recordDelivery(id, delivered: delivered, status: status)
                        } catch {
                            delivery.warn("webhooks: cannot store webhook \(id)'s cursor (\(error.message))")
                        }
                    case .remove:
                        delivery.transfers.cancel(hook: id)
                        machines[id] = nil
                    }
                }
            }
        }

        /// The machine's read: the ops after `since`, the board for a reset when they were
        /// compacted, or why there is nothing to deliver here.
        private func read(_ hook: Webhook, since: Seq) -> HookMachine.LogRead {
            do {
                if let cluster = delivery.cluster, try cluster.owner(of: hook.board) != cluster.node {
                    return .notOwner
                }
                guard try delivery.hooks.webhook(hook.id) != nil else { return .gone }
                switch try delivery.store.ops(of: hook.board, since: since, limit: HookMachine.pageOps) {
                case .ops(let ops, let current): return .ops(ops, current: current)
                case .unknownBoard: return .gone
                case .gone:
                    guard let stored = try delivery.store.load(hook.board, recentLimit: 0) else { return .gone }
                    return .reset(board: stored.board.encoded(), seq: stored.seq)
                }
            } catch {
                return .failed(error.message)
            }
        }
    }
}
