/// A first-in first-out queue with amortised O(1) `append` and `popFirst`, indexed from its oldest element.
///
/// `Array.removeFirst()` is O(n), which turns a backlog into quadratic work. This keeps the
/// elements in an array with a read index and compacts by one rule: once the popped elements
/// make up at least half of the array, they are removed in one go. Each compaction moves no more
/// elements than were popped since the last one (amortised O(1)), the array holds fewer than twice
/// the queued elements, and a queue that empties resets at once. The array keeps its
/// capacity (up to 1,024 elements when the queue empties); `removeAll()` releases it.
///
/// Index 0 is the oldest element (the next `popFirst`), `count - 1` the newest. Indices and slices
/// are invalidated by any mutation.
public struct FIFO<Element> {
    // Internal and @usableFromInline, with every member @inlinable, so that other modules (the
    // sequencer's history, the rooms, the send path) get FIFO specialised for their element type,
    // not generic code that looks up type metadata on every `append`, `count` and subscript.
    // Public, not package: Swift 6.3 does not make the bodies of `@inlinable package` members
    // available to other modules (their calls stay calls of the generic entry points, checked with
    // nm on the objects), while `@inlinable public` ones are specialised and inlined.
    @usableFromInline internal var storage: [Element]
    @usableFromInline internal var head = 0

    /// An empty queue.
    @inlinable public init() { storage = [] }

    /// A queue holding `elements`, the first of them oldest.
    @inlinable public init(_ elements: some Sequence<Element>) { storage = Array(elements) }

    /// Adds `element` as the newest.
    @inlinable public mutating func append(_ element: Element) { storage.append(element) }

    /// Adds `elements` in order, after every element already queued.
    @inlinable public mutating func append(contentsOf elements: some Sequence<Element>) {
        storage.append(contentsOf: elements)
    }

    /// Removes and returns the oldest element, or nil when the queue is empty.
    @inlinable public mutating func popFirst() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        compact()
        return element
    }

    /// Removes the `k` oldest elements; `k` must be between 0 and `count`.
    @inlinable public mutating func removeFirst(_ k: Int) {
        precondition(k >= 0 && k <= count, "cannot remove \(k) of \(count) elements")
        head += k
        compact()
    }

    /// Removes every element; the storage is released unless `keepingCapacity`.
    @inlinable public mutating func removeAll(keepingCapacity: Bool = false) {
        storage.removeAll(keepingCapacity: keepingCapacity)
        head = 0
    }

    /// How many elements the storage holds without growing.
    @inlinable public var capacity: Int { storage.capacity }

    /// The compaction rule (see the type's documentation).
    @inlinable internal mutating func compact() {
        guard head * 2 >= storage.count else { return }
        if head == storage.count {
            // A large backlog's storage is not kept once it has drained.
            storage.removeAll(keepingCapacity: storage.capacity <= 1024)
        } else {
            storage.removeFirst(head)
        }
        head = 0
    }
}

extension FIFO: RandomAccessCollection {
    /// 0: the oldest element.
    @inlinable public var startIndex: Int { 0 }
    /// The number of queued elements.
    @inlinable public var endIndex: Int { storage.count - head }
    /// The number of queued elements (concrete, not `Collection`'s generic `distance`).
    @inlinable public var count: Int { storage.count - head }
    /// True when nothing is queued.
    @inlinable public var isEmpty: Bool { head == storage.count }
    /// The oldest element.
    @inlinable public var first: Element? { head < storage.count ? storage[head] : nil }
    /// The element at `position`, 0 being the oldest; settable in place.
    @inlinable public subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < endIndex, "index \(position) out of range 0..<\(endIndex)")
            return storage[head + position]
        }
        set {
            precondition(position >= 0 && position < endIndex, "index \(position) out of range 0..<\(endIndex)")
            storage[head + position] = newValue
        }
    }
}

extension FIFO: Sendable where Element: Sendable {}
extension FIFO: Equatable where Element: Equatable {
    /// Queues compare by their elements, oldest first.
    @inlinable public static func == (a: FIFO, b: FIFO) -> Bool { a.elementsEqual(b) }
}
