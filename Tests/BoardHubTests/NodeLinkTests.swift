import BoardCore
import Testing

@testable import BoardHub

/// The node link (docs/cluster.md#the-node-link---node-links): its frames, the forwarding node's `NodeLink`
/// and the owner's `NodeLinkPeer`, event by event on a manual clock, and the two wired together
/// for three nodes.
@Suite struct NodeLinkTests {
    let board = BoardID("alpha")!
    let c1 = ConnectionID(11)
    let c2 = ConnectionID(12)
    let c3 = ConnectionID(13)

    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func link(limit: Int = 1_000) -> NodeLink {
        NodeLink(advertise: "127.0.0.1:9002", board: board, deadline: Instant(milliseconds: 3_000), limit: limit)
    }

    /// Everything the link would write now, decoded.
    func written(_ link: NodeLink) -> [NodeLinkFrame] {
        var frames: [NodeLinkFrame] = []
        while let next = link.nextWrite() { frames.append(NodeLinkFrame.decode(next)!) }
        return frames
    }

    func frame(_ frame: NodeLinkFrame) -> [UInt8] { frame.encoded()! }

    // MARK: Frames

    @Test func everyFrameDecodesToItself() {
        let frames: [NodeLinkFrame] = [
            .open(client: 1, address: "203.0.113.9", origin: "https://boards.example"),
            .open(client: 2, address: "::1", origin: nil),
            .message(client: 7, bytes(#"{"type":"hello"}"#)),
            .message(client: 7, []),
            .leave(client: 3, code: 1001),
            .broadcast(except: nil, bytes(#"{"type":"hover"}"#)),
            .broadcast(except: 4, bytes("x")),
            .some(clients: [1, 5, 9], bytes("y")),
            .close(client: 2, code: 4401, reason: "token expired — again"),
        ]
        for f in frames { #expect(NodeLinkFrame.decode(f.encoded()!) == f, "\(f)") }
    }

    @Test func malformedFramesAreRefused() {
        let bad: [[UInt8]] = [
            [],
            bytes("X\0\0\0\u{1}"),  // unknown kind
            [UInt8(ascii: "M"), 0, 0, 0],  // short
            [UInt8(ascii: "M"), 0, 0, 0, 0, 1],  // client 0
            [UInt8(ascii: "L"), 0, 0, 0, 1, 3, 0xe8, 9],  // trailing byte
            [UInt8(ascii: "O"), 0, 0, 0, 1, 5, 1, 2],  // address shorter than its length
            [UInt8(ascii: "O"), 0, 0, 0, 1, 1, 0xff],  // address not UTF-8
            [UInt8(ascii: "S"), 0, 0],  // no clients
            [UInt8(ascii: "C"), 0, 0, 0, 1, 3, 0xe8] + Array(repeating: UInt8(ascii: "r"), count: 124),
        ]
        for b in bad { #expect(NodeLinkFrame.decode(b) == nil, "\(b)") }
        #expect(
            NodeLinkFrame.open(client: 1, address: String(repeating: "a", count: 256), origin: nil).encoded() == nil)
        #expect(NodeLinkFrame.some(clients: [], []).encoded() == nil)
    }

    // MARK: The forwarding node

    @Test func clientsAttachedWhileConnectingGoInOrderOnceTheOwnerAccepts() {
        let link = link()
        #expect(link.handle(.attach(c1, address: "10.0.0.1", origin: nil, messages: [bytes("h1")])) == [])
        #expect(link.handle(.attach(c2, address: "10.0.0.2", origin: "o", messages: [bytes("h2")])) == [])
        #expect(link.nextWrite() == nil)
        #expect(link.handle(.established) == [.requestWrite])
        #expect(link.handle(.fromClient(c1, bytes("m1"))) == [])  // one WRITEABLE asked for already
        #expect(
            written(link) == [
                .open(client: 1, address: "10.0.0.1", origin: nil), .message(client: 1, bytes("h1")),
                .open(client: 2, address: "10.0.0.2", origin: "o"), .message(client: 2, bytes("h2")),
                .message(client: 1, bytes("m1")),
            ])
    }

    @Test func theOwnersFramesReachTheRightClientsAndBroadcastsOnlyThoseThatJoined() {
        let link = link()
        _ = link.handle(.attach(c1, address: "a", origin: nil, messages: [bytes("h1")]))
        _ = link.handle(.attach(c2, address: "b", origin: nil, messages: [bytes("h2")]))
        _ = link.handle(.established)
        _ = written(link)
        let welcome = bytes(#"{"type":"welcome","you":"u1"}"#)
        #expect(
            link.handle(.received(frame(.message(client: 1, welcome)))) == [.answered(c1), .deliver(welcome, to: [c1])])
        #expect(
            link.handle(.received(frame(.message(client: 1, welcome)))) == [.deliver(welcome, to: [c1])],
            "answered once")
        // c2 has no welcome yet: the owner's broadcast is c1's alone.
        let hover = bytes(#"{"type":"hover","by":"u9"}"#)
        #expect(
            link.handle(.received(frame(.broadcast(except: nil, hover))))
                == [.deliverAll(hover, members: [c1], except: nil)])
        let reject = bytes(#"{"type":"reject","op":"x"}"#)
        #expect(
            link.handle(.received(frame(.message(client: 2, reject)))) == [.answered(c2), .deliver(reject, to: [c2])])
        let welcome2 = bytes(#"{"type":"welcome","you":"u2"}"#)
        _ = link.handle(.received(frame(.message(client: 2, welcome2))))
        #expect(
            link.handle(.received(frame(.broadcast(except: nil, hover))))
                == [.deliverAll(hover, members: [c1, c2], except: nil)])
        #expect(
            link.handle(.received(frame(.broadcast(except: 1, hover))))
                == [.deliverAll(hover, members: [c1, c2], except: c1)])
        #expect(link.handle(.received(frame(.some(clients: [2, 40], hover)))) == [.deliver(hover, to: [c2])])
        #expect(
            link.handle(.received(frame(.close(client: 2, code: 4401, reason: "expired"))))
                == [.ended(c2, code: 4401, answered: true, unrelayed: [])])
        #expect(
            link.handle(.received(frame(.broadcast(except: nil, hover))))
                == [.deliverAll(hover, members: [c1], except: nil)])
        #expect(link.handle(.received(frame(.broadcast(except: 1, hover)))) == [])
        // A frame for a client that went is dropped.
        #expect(link.handle(.received(frame(.message(client: 2, reject)))) == [])
    }

    @Test func aClientThatOutrunsTheOwnerIsClosedAloneAndWhatTheOwnerTookIsLetGo() {
        let link = link(limit: 10)
        _ = link.handle(.attach(c1, address: "a", origin: nil, messages: [bytes("hello")]))
        _ = link.handle(.attach(c2, address: "b", origin: nil, messages: [bytes("hi")]))
        _ = link.handle(.established)
        _ = written(link)
        // Written but unanswered, c1's hello still counts: 5 + 6 > 10.
        #expect(
            link.handle(.fromClient(c1, bytes("123456")))
                == [.closeClient(c1, code: 1008, reason: "sending faster than the board's owner takes")])
        _ = link.handle(.received(frame(.message(client: 2, bytes("ok")))))
        // Answered, c2 keeps only what waits to be written.
        _ = link.handle(.writeable)
        #expect(link.handle(.fromClient(c2, bytes("12345678"))) == [.requestWrite])
        #expect(written(link) == [.message(client: 2, bytes("12345678"))])
        #expect(link.handle(.fromClient(c2, bytes("abcdefgh"))) == [])
    }

    @Test func aCloseBeforeAnyAnswerEndsAForwardNotAnsweredWithWhatTheClientSentAfterTheHubsMessages() {
        let link = link()
        _ = link.handle(.attach(c1, address: "a", origin: nil, messages: [bytes("h1")]))
        _ = link.handle(.attach(c2, address: "b", origin: nil, messages: [bytes("h2")]))
        _ = link.handle(.established)
        _ = written(link)
        _ = link.handle(.fromClient(c1, bytes("m1")))
        // The owner is not one any more: it sends c1 back without a word (the hub tries again).
        #expect(
            link.handle(.received(frame(.close(client: 1, code: 1012, reason: "board moved"))))
                == [.ended(c1, code: 1012, answered: false, unrelayed: [bytes("m1")])])
        #expect(link.attached == [c2] && link.accepting)
    }

    @Test func losingTheLinkEndsEveryClientsForwardAsItsOwnUpstreamWould() {
        let link = link()
        _ = link.handle(.attach(c1, address: "a", origin: nil, messages: [bytes("h1")]))
        _ = link.handle(.attach(c2, address: "b", origin: nil, messages: [bytes("h2"), bytes("q2")]))
        _ = link.handle(.established)
        _ = written(link)
        _ = link.handle(.received(frame(.message(client: 1, bytes(#"{"type":"welcome"}"#)))))
        _ = link.handle(.fromClient(c2, bytes("late")))
        #expect(
            link.handle(.lost) == [
                .ended(c1, code: nil, answered: true, unrelayed: []),
                .ended(c2, code: nil, answered: false, unrelayed: [bytes("late")]),
            ])
        #expect(link.phase == .ended && link.attached.isEmpty && !link.accepting)
        #expect(link.handle(.attach(c3, address: "c", origin: nil, messages: [])) == [])
    }

    @Test func anOwnerThatBreaksTheProtocolEndsTheLink() {
        let link = link()
        _ = link.handle(.attach(c1, address: "a", origin: nil, messages: [bytes("h1")]))
        _ = link.handle(.established)
        #expect(
            link.handle(.received(bytes("not a frame"))) == [
                .kill, .ended(c1, code: nil, answered: false, unrelayed: []),
            ])
        let other = self.link()
        _ = other.handle(.attach(c1, address: "a", origin: nil, messages: []))
        _ = other.handle(.established)
        #expect(
            other.handle(.received(frame(.leave(client: 1, code: 1000))))
                == [.kill, .ended(c1, code: nil, answered: false, unrelayed: [])])
    }

    @Test func aHandshakePastItsDeadlineIsKilledAndItsClientsRetried() {
        let link = link()
        _ = link.handle(.attach(c1, address: "a", origin: nil, messages: [bytes("h1")]))
        #expect(link.handle(.tick(Instant(milliseconds: 2_999))) == [])
        #expect(link.handle(.tick(Instant(milliseconds: 3_000))) == [.kill])
        #expect(link.handle(.lost) == [.ended(c1, code: nil, answered: false, unrelayed: [])])
    }

    @Test func theLastClientLeavingClosesTheLink() {
        let link = link()
        _ = link.handle(.attach(c1, address: "a", origin: nil, messages: []))
        _ = link.handle(.attach(c2, address: "b", origin: nil, messages: []))
        _ = link.handle(.established)
        _ = written(link)
        _ = link.handle(.writeable)
        #expect(link.handle(.detach(c1, code: 1001)) == [.requestWrite])
        #expect(written(link) == [.leave(client: 1, code: 1001)])
        _ = link.handle(.writeable)
        #expect(link.handle(.detach(c2, code: 1000)) == [.requestWrite])
        #expect(!link.accepting)
        #expect(link.handle(.writeable) == [.sendClose(code: 1000)])
        #expect(link.handle(.lost) == [])
    }

    @Test func theOwnerClosingTheLastClientClosesTheLink() {
        let link = link()
        _ = link.handle(.attach(c1, address: "a", origin: nil, messages: []))
        _ = link.handle(.attach(c2, address: "b", origin: nil, messages: []))
        _ = link.handle(.established)
        _ = written(link)
        _ = link.handle(.writeable)
        _ = link.handle(.received(frame(.message(client: 1, bytes(#"{"type":"welcome"}"#)))))
        _ = link.handle(.received(frame(.message(client: 2, bytes(#"{"type":"welcome"}"#)))))
        #expect(
            link.handle(.received(frame(.close(client: 1, code: 4410, reason: "deleted"))))
                == [.ended(c1, code: 4410, answered: true, unrelayed: [])])
        #expect(link.accepting)
        #expect(
            link.handle(.received(frame(.close(client: 2, code: 4410, reason: "deleted"))))
                == [.ended(c2, code: 4410, answered: true, unrelayed: []), .requestWrite])
        #expect(!link.accepting)
        #expect(link.handle(.writeable) == [.sendClose(code: 1000)])
        #expect(link.handle(.lost) == [])
    }

    // MARK: The owner

    @Test func theOwnerMakesASessionPerClientAndSendsEachBroadcastOnce() {
        let peer = NodeLinkPeer(maxClients: 2)
        var next: UInt64 = 100
        func make() -> ConnectionID {
            next += 1
            return ConnectionID(next)
        }
        let s1 = ConnectionID(101)
        let s2 = ConnectionID(102)
        #expect(
            peer.received(frame(.open(client: 1, address: "10.0.0.1", origin: "o")), makeID: make)
                == .opened(s1, address: "10.0.0.1", origin: "o"))
        #expect(peer.received(frame(.open(client: 2, address: "10.0.0.2", origin: nil)), makeID: make) != nil)
        #expect(peer.received(frame(.message(client: 2, bytes("hi"))), makeID: make) == .received(s2, bytes("hi")))
        #expect(
            peer.received(frame(.open(client: 3, address: "x", origin: nil)), makeID: make)
                == .violation("more than 2 clients"))
        #expect(peer.send(bytes("w"), to: s1, isWelcome: true) == frame(.message(client: 1, bytes("w"))))
        #expect(peer.send(bytes("w"), to: s2, isWelcome: true) != nil)
        let h = bytes("h")
        #expect(peer.broadcast(h, to: [s1, s2, ConnectionID(5)], except: nil) == frame(.broadcast(except: nil, h)))
        #expect(peer.broadcast(h, to: [s2, ConnectionID(5)], except: s1) == frame(.broadcast(except: 1, h)))
        // The excepted session is left out also when the recipients name it (the hub's hovers).
        #expect(peer.broadcast(h, to: [s1, s2], except: s1) == frame(.broadcast(except: 1, h)))
        #expect(peer.broadcast(h, to: [s1], except: s1) == nil)
        #expect(peer.broadcast(h, to: [s2], except: nil) == frame(.some(clients: [2], h)))
        #expect(peer.broadcast(h, to: [ConnectionID(5)], except: nil) == nil)
        #expect(
            peer.close(s2, code: 4401, reason: "expired") == frame(.close(client: 2, code: 4401, reason: "expired")))
        // What the node sent before it heard of the close is dropped, not a violation.
        #expect(peer.received(frame(.message(client: 2, bytes("late"))), makeID: make) == nil)
        // A number opened again is a node out of step.
        #expect(
            peer.received(frame(.open(client: 2, address: "x", origin: nil)), makeID: make)
                == .violation("client 2 opened twice or out of order"))
        #expect(peer.received(frame(.leave(client: 1, code: 1001)), makeID: make) == .closed(s1))
        #expect(
            peer.received(frame(.broadcast(except: nil, h)), makeID: make) == .violation("a frame only an owner sends"))
        #expect(peer.lost() == [])
    }

    // MARK: Three nodes

    /// An owner with direct clients and two forwarding nodes of three clients each, wired by their
    /// frames: every client sees the same broadcasts in the same order, and each broadcast costs
    /// the owner one frame per node plus one per direct client.
    @Test func clientsOnThreeNodesSeeOneOrderAndTheOwnerSendsOnceAPerNode() {
        var next: UInt64 = 1_000
        func make() -> ConnectionID {
            next += 1
            return ConnectionID(next)
        }
        let direct = [ConnectionID(1), ConnectionID(2)]
        var nodes: [(link: NodeLink, peer: NodeLinkPeer, clients: [ConnectionID])] = []
        for n in 0..<2 {
            let clients = (0..<3).map { ConnectionID(UInt64(100 * (n + 1) + $0)) }
            nodes.append((link(), NodeLinkPeer(maxClients: 10), clients))
        }
        var seen: [ConnectionID: [[UInt8]]] = [:]
        func deliver(_ actions: [NodeLink.Action]) {
            for action in actions {
                switch action {
                case .deliver(let payload, let to):
                    for c in to { seen[c, default: []].append(payload) }
                case .deliverAll(let payload, let members, let except):
                    for c in members where c != except { seen[c, default: []].append(payload) }
                default:
                    break
                }
            }
        }
        // Each node's clients join: the owner makes a session for each and welcomes it.
        var sessions: [ConnectionID] = direct
        var sessionOf: [ConnectionID: ConnectionID] = Dictionary(uniqueKeysWithValues: direct.map { ($0, $0) })
        for node in nodes {
            for c in node.clients { _ = node.link.handle(.attach(c, address: "10.0.0.9", origin: nil, messages: [])) }
            _ = node.link.handle(.established)
            var opened = 0
            while let frame = node.link.nextWrite() {
                guard case .opened(let s, _, _) = node.peer.received(frame, makeID: make) else { continue }
                sessions.append(s)
                sessionOf[node.clients[opened]] = s
                opened += 1
                let welcome = node.peer.send(bytes(#"{"type":"welcome"}"#), to: s, isWelcome: true)!
                deliver(node.link.handle(.received(welcome)))
            }
        }
        // The owner broadcasts twenty messages, each to every session but its sender.
        var ownerFrames = 0
        let count = 20
        for i in 0..<count {
            let message = bytes(#"{"type":"hover","by":"u","n":\#(i)}"#)
            let sender = sessions[i % sessions.count]
            let recipients = sessions.filter { $0 != sender }
            for c in direct where recipients.contains(c) {
                seen[c, default: []].append(message)
                ownerFrames += 1
            }
            for node in nodes {
                guard let frame = node.peer.broadcast(message, to: sessions, except: sender) else { continue }
                ownerFrames += 1
                deliver(node.link.handle(.received(frame)))
            }
        }
        // At most one frame per node and one per direct client, whatever the node's clients.
        #expect(ownerFrames <= count * (nodes.count + direct.count))
        let directFrames = (0..<count).reduce(0) { n, i in
            n + direct.filter { $0 != sessions[i % sessions.count] }.count
        }
        #expect(ownerFrames == count * nodes.count + directFrames)
        // Each client saw every broadcast but its own, in the owner's order.
        for c in direct + nodes.flatMap(\.clients) {
            let got = (seen[c] ?? []).filter { $0.starts(with: bytes(#"{"type":"hover""#)) }
            let expected = (0..<count).filter { sessions[$0 % sessions.count] != sessionOf[c] }.map { i in
                bytes(#"{"type":"hover","by":"u","n":\#(i)}"#)
            }
            #expect(got == expected, "\(c)")
        }
    }
}
