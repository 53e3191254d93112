/// An XML element as plain values: what the .zwo and TCX readers walk. Names are local
/// (namespace prefixes dropped), so "ns3:TPX" and "TPX" read the same.
public struct MarkupElement: Sendable, Equatable {
    public var name: String
    public var attributes: [String: String]
    public var children: [MarkupElement]
    /// The element's own text, whitespace at both ends trimmed.
    public var text: String
    /// 1-based line of the start tag.
    public var line: Int

    public init(name: String, attributes: [String: String] = [:], children: [MarkupElement] = [], text: String = "", line: Int) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
        self.line = line
    }

    /// The first child named `name`, ignoring case.
    public func child(_ name: String) -> MarkupElement? {
        children.first { $0.name.caseInsensitiveEquals(name) }
    }

    /// The first element at the end of a path of child names.
    public func descendant(_ path: String...) -> MarkupElement? {
        var element: MarkupElement? = self
        for name in path { element = element?.child(name) }
        return element
    }

    /// An attribute, ignoring the case of its name (Zwift's files mix "Cadence" and "cadence").
    public func attribute(_ name: String) -> String? {
        if let exact = attributes[name] { return exact }
        return attributes.first { $0.key.caseInsensitiveEquals(name) }?.value
    }
}

/// XML that could not be read.
public struct MarkupError: Error, Equatable, Sendable {
    public var line: Int?
    public var message: String

    public init(line: Int?, message: String) {
        self.line = line
        self.message = message
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
