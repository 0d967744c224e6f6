/// A first-in first-out queue with amortised O(1) push and pop.
///
/// `Array.removeFirst()` is O(n), which turns a backlog of buffered messages
/// into quadratic work; this keeps a read index and compacts lazily instead.
struct FIFO<Element> {
    private var storage: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }

    mutating func push(_ element: Element) {
        storage.append(element)
    }

    mutating func push(contentsOf elements: some Sequence<Element>) {
        storage.append(contentsOf: elements)
    }

    mutating func pop() -> Element? {
        guard head < storage.count else { return nil }
        let element = storage[head]
        head += 1
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.count <= 1024)
            head = 0
        } else if head >= 1024 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}
