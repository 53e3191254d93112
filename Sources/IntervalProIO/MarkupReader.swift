import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
public import IntervalProFormats

/// Reads XML (.zwo workouts, TCX activities) into `MarkupElement` values with Foundation's
/// XMLParser (libxml2): namespaces resolved to local names, external entities never loaded.
public enum MarkupReader {
    public static func read(_ bytes: [UInt8]) throws(MarkupError) -> MarkupElement {
        // XMLParser traps on a name that is not valid UTF-8; every .zwo and TCX is UTF-8.
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw MarkupError(line: nil, message: "not UTF-8 text")
        }
        // ... and crashes on a processing instruction with no data ("<?xml?>", "<?pi?>").
        if let line = emptyProcessingInstructionLine(bytes) {
            throw MarkupError(line: line, message: "a processing instruction with nothing in it (like <?xml?>)")
        }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        let builder = TreeBuilder(parser: parser)
        parser.delegate = builder
        let parsed = parser.parse()
        if let failure = builder.failure { throw failure }
        guard parsed, let root = builder.root else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed"
            throw MarkupError(line: parser.lineNumber > 0 ? parser.lineNumber : nil, message: reason)
        }
        return root
    }

    /// The line of the first `<?name?>` (only whitespace after the name), if any.
    static func emptyProcessingInstructionLine(_ bytes: [UInt8]) -> Int? {
        var line = 1
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0A { line += 1 }
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else {
                index += 1
                continue
            }
            var end = index + 2
            while end < bytes.count, ![0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "?")].contains(bytes[end]) { end += 1 }
            while end < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end]) { end += 1 }
            if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "?"), bytes[end + 1] == UInt8(ascii: ">") { return line }
            index += 2
        }
        return nil
    }

    /// Deeper nesting than any workout or activity needs is refused (and keeps a hostile
    /// file from exhausting the stack).
    static let maxDepth = 64

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        let parser: XMLParser
        var stack: [MarkupElement] = []
        var texts: [String] = []
        var root: MarkupElement?
        var failure: MarkupError?

        init(parser: XMLParser) {
            self.parser = parser
        }

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            guard stack.count < MarkupReader.maxDepth else {
                failure = MarkupError(line: parser.lineNumber, message: "elements nested more than \(MarkupReader.maxDepth) deep")
                parser.abortParsing()
                return
            }
            let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
            var plain: [String: String] = [:]
            for (key, value) in attributes { plain[key.split(separator: ":").last.map(String.init) ?? key] = value }
            stack.append(MarkupElement(name: local, attributes: plain, line: parser.lineNumber))
            texts.append("")
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !texts.isEmpty else { return }
            texts[texts.count - 1] += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            guard !texts.isEmpty else { return }
            texts[texts.count - 1] += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard var element = stack.popLast(), let text = texts.popLast() else { return }
            element.text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }
    }
}
