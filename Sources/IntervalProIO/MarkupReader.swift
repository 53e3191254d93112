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
