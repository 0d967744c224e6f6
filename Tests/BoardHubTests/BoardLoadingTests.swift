import BoardAuth
import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// `BoardLoading` alone, without the hub: what each piece of work that waited for the store comes
/// to, given what the store said (`View`) and what the hub has of the board (in memory, being
/// deleted), and what the work behind it sees after it.
@Suite struct BoardLoadingTests {
    let demo = board("demo")
    let ann = ConnectionID(1)
    let x = ExchangeID(7)

    func state(inMemory: Bool = false, deleting: Bool = false, createsOnHello: Bool = true) -> BoardLoading.Board {
        BoardLoading.Board(id: demo, inMemory: inMemory, deleting: deleting, createsOnHello: createsOnHello)
    }

    /// A decision as text: its case, and for an answer its status and error code.
    func text(_ decision: BoardLoading.Decision) -> String {
        func answer(_ response: HTTPResponse) -> String {
            let body = String(decoding: response.body, as: UTF8.self)
            let code = body.split(separator: "\"").dropFirst(3).first.map(String.init) ?? "?"
            return "\(response.status) \(code)"
        }
        switch decision {
        case .loadFirst: return "loadFirst"
        case .none: return "none"
        case .join: return "join"
        case .createAndJoin: return "createAndJoin"
        case .viewerMayNotCreate: return "viewerMayNotCreate"
        case .failJoin(_, let why): return "failJoin \(why)"
        case .respond(_, let response): return "respond \(answer(response))"
        case .create: return "create"
        case .importBoard: return "importBoard"
        case .delete: return "delete"
        case .submit: return "submit"
        case .members: return "members"
        case .openStream: return "openStream"
        case .refuseStream(_, let response): return "refuseStream \(answer(response))"
        }
    }

    func decide(
        _ work: Deferred, _ view: BoardLoading.View, _ board: BoardLoading.Board, joiner: Role? = .edit
    ) -> String {
        text(BoardLoading.decide(work, view: view, board: board, joiner: joiner))
    }

    @Test func aJoinJoinsTheBoardInMemoryAndMakesAnUnknownOneOnlyForAnEditor() {
        #expect(decide(.join(ann), .present, state(inMemory: true)) == "join")
        #expect(decide(.join(ann), .absent, state()) == "createAndJoin")
        #expect(decide(.join(ann), .absent, state(), joiner: .view) == "viewerMayNotCreate")
        #expect(decide(.join(ann), .absent, state(createsOnHello: false)) == "failJoin unknown")
        #expect(decide(.join(ann), .absent, state(createsOnHello: false), joiner: .view) == "failJoin unknown")
        #expect(decide(.join(ann), .failed, state()) == "failJoin unavailable")
        #expect(decide(.join(ann), .present, state(deleting: true)) == "failJoin deleted")
        #expect(decide(.join(ann), .present, state(inMemory: true, deleting: true)) == "failJoin deleted")
        // A connection gone (or no longer joining) by the time the store answered: nothing.
        #expect(decide(.join(ann), .present, state(inMemory: true), joiner: nil) == "none")
        // A claim that found the board present but could not load it: the store failed.
        #expect(decide(.join(ann), .present, state()) == "failJoin unavailable")
    }

    @Test func workThatNeedsTheBoardWaitsForALoadWhenOnlyItsExistenceWasRead() {
        let pending = RESTOp.Pending(
            request: OpRequest(opID: OpID("r-1")!, base: 0, op: .toggle(item: ItemID("t1")!, on: true)), name: "api",
            member: nil, peer: "127.0.0.1", http: request())
        for work in [Deferred.join(ann), .op(x, pending), .stream(x), .members(x, request())] {
            #expect(decide(work, .presentNotLoaded, state()) == "loadFirst")
        }
        for work in [Deferred.create(x, .defaultTemplate(id: demo)), .delete(x)] {
            #expect(decide(work, .presentNotLoaded, state()) != "loadFirst")
        }
        #expect(decide(.op(x, pending), .present, state(inMemory: true)) == "submit")
        #expect(decide(.op(x, pending), .absent, state()) == "respond 404 unknown_board")
        #expect(decide(.op(x, pending), .failed, state()) == "respond 503 unavailable")
        #expect(decide(.op(x, pending), .present, state(inMemory: true, deleting: true)) == "respond 404 unknown_board")
        #expect(decide(.members(x, request()), .present, state(inMemory: true)) == "members")
        #expect(decide(.members(x, request()), .failed, state()) == "respond 503 unavailable")
        #expect(decide(.stream(x), .present, state(inMemory: true)) == "openStream")
        #expect(decide(.stream(x), .absent, state()) == "refuseStream 404 unknown_board")
        #expect(decide(.stream(x), .failed, state()) == "refuseStream 503 unavailable")
    }

    @Test func aCreateMakesOnlyAnAbsentBoard() {
        let made = Deferred.create(x, .defaultTemplate(id: demo))
        #expect(decide(made, .absent, state()) == "create")
        #expect(decide(made, .present, state(inMemory: true)) == "respond 409 exists")
        #expect(decide(made, .presentNotLoaded, state()) == "respond 409 exists")
        #expect(decide(made, .absent, state(deleting: true)) == "respond 409 deleting")
        #expect(decide(made, .failed, state()) == "respond 503 unavailable")
    }

    @Test func aDeleteDeletesAStoredBoardAndAnswers404ForAnAbsentOne() {
        #expect(decide(.delete(x), .present, state(inMemory: true)) == "delete")
        #expect(decide(.delete(x), .presentNotLoaded, state()) == "delete")
        #expect(decide(.delete(x), .absent, state()) == "respond 404 unknown_board")
        #expect(decide(.delete(x), .failed, state()) == "respond 503 unavailable")
        #expect(decide(.delete(x), .present, state(inMemory: true, deleting: true)) == "respond 404 unknown_board")
        // In memory though the store failed to say (made by work before it): deleted.
        #expect(decide(.delete(x), .failed, state(inMemory: true)) == "delete")
    }

    @Test func theWorkBehindSeesWhatTheWorkBeforeItDid() {
        let made = BoardLoading.decide(
            .create(x, .defaultTemplate(id: demo)), view: .absent, board: state(), joiner: nil)
        let afterCreate = BoardLoading.View.absent.after(made, made: false)
        #expect(afterCreate == .present)
        // A second create behind the first one finds the board made.
        #expect(
            decide(.create(ExchangeID(8), .defaultTemplate(id: demo)), afterCreate, state()) == "respond 409 exists")
        let deleted = BoardLoading.decide(.delete(x), view: .present, board: state(inMemory: true), joiner: nil)
        #expect(BoardLoading.View.present.after(deleted, made: false) == .absent)
        // A hello whose address may not make boards now leaves the board absent for the work behind it.
        let hello = BoardLoading.decide(.join(ann), view: .absent, board: state(), joiner: .edit)
        #expect(BoardLoading.View.absent.after(hello, made: false) == .absent)
        #expect(BoardLoading.View.absent.after(hello, made: true) == .present)
        // Answers change nothing.
        let refused = BoardLoading.decide(.delete(x), view: .absent, board: state(), joiner: nil)
        #expect(BoardLoading.View.absent.after(refused, made: false) == .absent)
    }

    func request() -> HTTPRequest {
        HTTPRequest(method: .get, path: "/api/boards/demo/members", query: [:], peer: "127.0.0.1")
    }
}
