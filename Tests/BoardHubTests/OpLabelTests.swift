import Testing

@testable import BoardCore
@testable import BoardHub

/// The metrics' op labels are found by `Op.Kind.index` (a table per label type), not by name:
/// each op still gets the label of its own wire name, in every label type that names ops.
@Suite struct OpLabelTests {
    let item = ItemID("t1")!
    let zone = ZoneID("todo")!

    var ops: [Op] {
        [
            .swap(a: item, b: ItemID("t2")!), .move(item: item, zone: zone, before: nil), .toggle(item: item, on: true),
            .remove(item: item), .removeZone(zone: zone), .retitle(title: "Plans"), .restore(to: 3, board: nil),
            .removeTag(tag: TagID("g1")!), .removeCheck(item: item, check: CheckID("k1")!),
            .removeComment(item: item, comment: CommentID(seq: 4)), .moveMany(items: [item], zone: zone, before: nil),
            .archive(items: [item]), .unarchive(items: [item], zone: zone, before: nil),
        ]
    }

    @Test func everyOpKindHasALabelOfItsName() {
        #expect(OpType.allCases.map(\.rawValue) == Op.kinds)
        for kind in Op.Kind.allCases {
            #expect(ClientMessageType(rawValue: kind.rawValue) != nil, "\(kind)")
            #expect(ServerMessageType(rawValue: kind.rawValue) != nil, "\(kind)")
        }
    }

    @Test func anOpsLabelsAreItsKind() {
        for op in ops {
            #expect(OpType(op).rawValue == op.kind)
            let request = OpRequest(opID: OpID("o1")!, base: 0, op: op)
            #expect(ClientMessageType(.success(.op(request))).rawValue == op.kind)
            let committed = CommittedOp(
                seq: 1, opID: request.opID, by: UserID("u1"), op: op, time: UnixTime(milliseconds: 0))
            #expect(ServerMessageType(.committed(committed)).rawValue == op.kind)
        }
    }
}
