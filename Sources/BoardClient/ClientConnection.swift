internal import Basics
import Synchronization

/// One WebSocket client connection served by a `ClientLoop`; every method is thread-safe.
///
/// Outgoing messages travel to the loop's service thread through its inbox;
/// incoming ones are buffered here until `receive` takes them, so nothing is
/// lost when nobody is waiting. The loop keeps the connection open until
/// `close()` or `ClientLoop.shutdown()`: dropping the last reference does not close it.
public final class ClientConnection: Sendable {
    /// The small id the service thread knows this connection by (also in the lws per-session data).
    let id: UInt64
    private let service: ClientService
    private let state: Mutex<State>

    /// Everything a user thread and the service thread share about one connection.
    struct State {
        enum Phase {
            case connecting
            case open
            case closed(code: Int, reason: String)
            case failed(ClientError)
        }

        var phase = Phase.connecting
        /// Set by `close()` or an abandoned connect; later sends are dropped.
        var closeRequested = false
        var messages = FIFO<String>()
        var nextWaiterID: UInt64 = 0
        var openWaiters = Waiters<Void>()
        var receivers = Waiters<String>()
        var closeWaiters = Waiters<CloseInfo>()
    }

    /// What `waitForClose` returns.
    typealias CloseInfo = (code: Int, reason: String)

    init(id: UInt64, service: ClientService) {
        self.id = id
        self.service = service
        self.state = Mutex(State())
    }

    // MARK: Sending

    /// Queues `text` as one WebSocket text frame; ignored once the connection is closing.
    public func send(_ text: String) {
        enqueue(OutgoingFrame.textMessage(text))
    }

    /// Queues `text` as one text message split into frames of `fragmentSize` bytes (UTF-8 may split mid-character).
    public func sendFragmented(_ text: String, fragmentSize: Int) {
        enqueue(OutgoingFrame.textMessage(text, fragmentSize: fragmentSize))
    }

    /// Queues `bytes` as one WebSocket binary frame; ignored once the connection is closing.
    public func sendBinary(_ bytes: [UInt8]) {
        enqueue(OutgoingFrame.binaryMessage(bytes))
    }

    private func enqueue(_ frames: [OutgoingFrame]) {
        let accepted = state.withLock { state in
            if state.closeRequested { return false }
            if case .open = state.phase { return true }
            return false
        }
        if accepted {
            service.post(.send(id, frames))
        }
    }

    /// Starts a clean close after every message queued before it; lws drops data the server sends after that.
    public func close(code: UInt16 = 1000, reason: String = "") {
        let first = state.withLock { state in
            defer { state.closeRequested = true }
            if case .open = state.phase { return !state.closeRequested }
            return false
        }
        if first {
            service.post(.close(id, code: code, reason: reason))
        }
    }

    // MARK: Receiving

    /// The next complete message (binary ones decoded as UTF-8); throws `closed` once closed and drained, `timeout` after `timeout`.
    public func receive(timeout: Duration = .seconds(5)) async throws -> String {
        try await wait(timeout: timeout, on: \.receivers) { state in
            if let message = state.messages.popFirst() { return .success(message) }
            switch state.phase {
            case .connecting, .open: return nil
            case .closed(let code, let reason): return .failure(.closed(code: code, reason: reason))
            case .failed(let error): return .failure(error)
            }
        }
    }

    /// The close code and reason the server sent (1005 if it sent none, 1006 if the TCP connection dropped, or the code passed to `close`).
    public func waitForClose(timeout: Duration = .seconds(5)) async throws -> (code: Int, reason: String) {
        try await wait(timeout: timeout, on: \.closeWaiters) { state in
            switch state.phase {
            case .connecting, .open: return nil
            case .closed(let code, let reason): return .success((code, reason))
            case .failed(let error): return .failure(error)
            }
        }
    }

    /// True once the connection has closed (handshake finished or TCP dropped); buffered messages may remain.
    public var isClosed: Bool {
        state.withLock { state in
            switch state.phase {
            case .connecting, .open: return false
            case .closed, .failed: return true
            }
        }
    }

    // MARK: Connecting (used by ClientLoop)

    /// Waits for the handshake; `ClientLoop.connect` abandons the connection if this throws.
    func waitUntilOpen(timeout: Duration) async throws {
        try await wait(timeout: timeout, on: \.openWaiters) { state in
            switch state.phase {
            case .connecting: return nil
            case .open: return .success(())
            case .closed(let code, let reason): return .failure(.closed(code: code, reason: reason))
            case .failed(let error): return .failure(error)
            }
        }
    }

    /// Gives up on a connect that timed out or was cancelled: the service thread drops the socket.
    func abandon() {
        state.withLock { state in
            state.closeRequested = true
            if case .connecting = state.phase {
                state.phase = .failed(.timeout)
            }
        }
        service.post(.abandon(id))
    }

    // MARK: Events from the service thread

    /// The handshake finished; false if the connect was already abandoned (the caller then drops it).
    func didOpen() -> Bool {
        let (opened, waiters) = state.withLock { state -> (Bool, [Waiters<Void>.Continuation]) in
            guard case .connecting = state.phase else { return (false, []) }
            state.phase = .open
            return (true, state.openWaiters.takeAll())
        }
        for waiter in waiters { waiter.resume() }
        return opened
    }

    /// The connection never opened.
    func didFail(_ error: ClientError) {
        let waiters = state.withLock { state -> [Waiters<Void>.Continuation] in
            guard case .connecting = state.phase else { return [] }
            state.phase = .failed(error)
            return state.openWaiters.takeAll()
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }

    /// A complete message arrived: hand it to the oldest waiting `receive`, or buffer it.
    func didReceive(_ message: String) {
        let receiver = state.withLock { state -> Waiters<String>.Continuation? in
            if let receiver = state.receivers.takeFirst() { return receiver }
            state.messages.append(message)
            return nil
        }
        receiver?.resume(returning: message)
    }

    /// The connection is gone; wake every waiter.
    func didClose(code: Int, reason: String) {
        typealias Woken = (
            open: [Waiters<Void>.Continuation],
            receive: [Waiters<String>.Continuation],
            close: [Waiters<CloseInfo>.Continuation]
        )
        let woken = state.withLock { state -> Woken? in
            switch state.phase {
            case .closed, .failed:
                return nil
            case .connecting, .open:
                state.phase = .closed(code: code, reason: reason)
                state.closeRequested = true
                // A parked receiver means the buffer is empty, so all of them get `closed`.
                return (state.openWaiters.takeAll(), state.receivers.takeAll(), state.closeWaiters.takeAll())
            }
        }
        guard let woken else { return }
        let error = ClientError.closed(code: code, reason: reason)
        for waiter in woken.open { waiter.resume(throwing: error) }
        for waiter in woken.receive { waiter.resume(throwing: error) }
        for waiter in woken.close { waiter.resume(returning: (code, reason)) }
    }

    // MARK: Waiting

    /// Returns `outcome` at once if it has one; otherwise parks on `waiters` until a
    /// delivery, the timeout or task cancellation takes the entry back (whichever
    /// takes it under the lock resumes it, so it is resumed exactly once).
    private func wait<Value: Sendable>(
        timeout: Duration,
        on waiters: WritableKeyPath<State, Waiters<Value>> & Sendable,
        outcome: (inout State) -> Result<Value, ClientError>?
    ) async throws -> Value {
        // Fast path: a buffered message (or a final outcome) needs no continuation or timer.
        var newID: UInt64 = 0
        let ready = state.withLock { state -> Result<Value, ClientError>? in
            if let result = outcome(&state) { return result }
            state.nextWaiterID += 1
            newID = state.nextWaiterID
            return nil
        }
        if let ready { return try ready.get() }
        let id = newID
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let timer = Timeout(after: timeout) { [self] in
                    let taken = state.withLock { $0[keyPath: waiters].take(id: id) }
                    taken?.resume(throwing: ClientError.timeout)
                }
                let immediate: Result<Value, any Error>? = state.withLock { state in
                    if let result = outcome(&state) { return result.mapError { $0 } }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state[keyPath: waiters].park(id: id, continuation, timer: timer)
                    return nil
                }
                if let immediate {
                    timer.cancel()
                    continuation.resume(with: immediate)
                }
                timer.start()
            }
        } onCancel: {
            let taken = state.withLock { $0[keyPath: waiters].take(id: id) }
            taken?.resume(throwing: CancellationError())
        }
    }
}
