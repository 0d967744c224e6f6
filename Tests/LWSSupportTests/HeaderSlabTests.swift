import Glibc
import Testing

@testable import LWSSupport

@Suite struct HeaderSlabTests {
    @Test func headerBlocksGoToTheSlab() throws {
        let block = try #require(HeaderSlab.allocate(nil, 8192, "ah data"))
        #expect(HeaderSlab.holds(block))
        block.storeBytes(of: 0xAB, toByteOffset: 8191, as: UInt8.self)
        #expect(HeaderSlab.allocate(block, 0, "lws_free") == nil)

        let table = try #require(HeaderSlab.allocate(nil, 1000, "ah struct"))
        #expect(HeaderSlab.holds(table))
        _ = HeaderSlab.allocate(table, 0, "lws_free")
    }

    @Test func otherBlocksGoToMalloc() throws {
        let other = try #require(HeaderSlab.allocate(nil, 840, "new server wsi"))
        #expect(!HeaderSlab.holds(other))
        _ = HeaderSlab.allocate(other, 0, "lws_free")
        let large = try #require(HeaderSlab.allocate(nil, 8193, "ah data"))
        #expect(!HeaderSlab.holds(large))
        _ = HeaderSlab.allocate(large, 0, "lws_free")
        #expect(HeaderSlab.allocate(nil, 0, "nothing") == nil)
    }

    @Test func growingASlabBlockMovesItToMallocWithItsBytes() throws {
        let block = try #require(HeaderSlab.allocate(nil, 100, "ah data"))
        memset(block, 0x5A, 8192)
        #expect(HeaderSlab.allocate(block, 4096, "grow") == block)
        let moved = try #require(HeaderSlab.allocate(block, 16384, "grow"))
        #expect(!HeaderSlab.holds(moved))
        #expect(moved.load(fromByteOffset: 8191, as: UInt8.self) == 0x5A)
        _ = HeaderSlab.allocate(moved, 0, "lws_free")
    }
}
