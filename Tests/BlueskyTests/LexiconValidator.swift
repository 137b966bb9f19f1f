import BlueskyAPI
import BotClock
import Foundation

/// Checks JSON against the AT Protocol lexicons in `Resources/lexicons` (taken from bluesky-social/atproto): objects'
/// required properties, each property's type, strings' lengths in bytes and graphemes and their formats, integers'
/// bounds, arrays' lengths and items, refs and unions followed across documents. Unknown properties are allowed, as
/// lexicons allow them; an open union's unknown `$type` is allowed, a closed one's is not.
struct LexiconValidator {
    private var documents: [String: [String: JSONValue]] = [:]

    /// Reads every lexicon under the test bundle's `Resources/lexicons`.
    init() throws {
        guard let root = Bundle.module.url(forResource: "lexicons", withExtension: nil, subdirectory: "Resources") else {
            throw CocoaError(.fileNoSuchFile)
        }
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "json" {
            let document = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: file))
            guard let id = document["id"]?.stringValue, case .object(let defs)? = document["defs"] else { continue }
            documents[id] = defs
        }
    }

    /// The problems of `value` as the output of the method `nsid`.
    func problems(ofOutput value: JSONValue, of nsid: String) -> [String] {
        guard let main = documents[nsid]?["main"], let schema = main["output"]?["schema"] else { return ["no lexicon output for \(nsid)"] }
        return problems(value, schema, in: nsid, at: nsid)
    }

    /// The problems of `value` as a record of `collection`.
    func problems(ofRecord value: JSONValue, in collection: String) -> [String] {
        guard let record = documents[collection]?["main"]?["record"] else { return ["no lexicon record for \(collection)"] }
        return problems(value, record, in: collection, at: collection)
    }

    /// How many lexicon documents were read.
    var count: Int { documents.count }

    private func resolve(_ reference: String, from nsid: String) -> (schema: JSONValue, nsid: String)? {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let document = parts[0].isEmpty ? nsid : parts[0]
        let name = parts.count > 1 ? parts[1] : "main"
        return documents[document]?[name].map { ($0, document) }
    }

    private func problems(_ value: JSONValue, _ schema: JSONValue, in nsid: String, at path: String) -> [String] {
        switch schema["type"]?.stringValue {
        case "object", "record":
            let object = schema["type"]?.stringValue == "record" ? schema["record"] ?? .null : schema
            guard case .object(let members) = value else { return ["\(path): not an object"] }
            var found: [String] = []
            if case .array(let required)? = object["required"] {
                for name in required.compactMap(\.stringValue) where members[name] == nil || members[name] == .null {
                    if case .array(let nullable)? = object["nullable"], nullable.contains(.string(name)), members[name] == .null { continue }
                    found.append("\(path): required \(name) is missing")
                }
            }
            if case .object(let properties)? = object["properties"] {
                for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                    guard let property = properties[name] else { continue }
                    if member == .null, case .array(let nullable)? = object["nullable"], nullable.contains(.string(name)) { continue }
                    found += problems(member, property, in: nsid, at: "\(path).\(name)")
                }
            }
            return found
        case "ref":
            guard let reference = schema["ref"]?.stringValue, let (target, document) = resolve(reference, from: nsid) else {
                return ["\(path): unresolvable ref \(schema["ref"]?.stringValue ?? "?")"]
            }
            return problems(value, target, in: document, at: path)
        case "union":
            guard let type = value["$type"]?.stringValue else { return ["\(path): a union member without $type"] }
            guard case .array(let references)? = schema["refs"] else { return [] }
            for reference in references.compactMap(\.stringValue) {
                let full = reference.hasPrefix("#") ? nsid + reference : reference
                if full == type || (full + "#main") == type || full == type + "#main" {
                    guard let (target, document) = resolve(reference, from: nsid) else { return ["\(path): unresolvable ref \(reference)"] }
                    return problems(value, target, in: document, at: path)
                }
            }
            return schema["closed"] == .bool(true) ? ["\(path): $type \(type) is not one of the closed union's"] : []
        case "string":
            guard case .string(let text) = value else { return ["\(path): not a string"] }
            var found: [String] = []
            if case .integer(let most)? = schema["maxLength"], text.utf8.count > most { found.append("\(path): \(text.utf8.count) bytes > \(most)") }
            if case .integer(let least)? = schema["minLength"], text.utf8.count < least {
                found.append("\(path): \(text.utf8.count) bytes < \(least)")
            }
            if case .integer(let most)? = schema["maxGraphemes"], text.count > most { found.append("\(path): \(text.count) graphemes > \(most)") }
            if let format = schema["format"]?.stringValue, !Self.matches(text, format: format) {
                found.append("\(path): \"\(text)\" is not a \(format)")
            }
            return found
        case "integer":
            guard case .integer(let number) = value else { return ["\(path): not an integer"] }
            if case .integer(let least)? = schema["minimum"], number < least { return ["\(path): \(number) < \(least)"] }
            if case .integer(let most)? = schema["maximum"], number > most { return ["\(path): \(number) > \(most)"] }
            return []
        case "boolean":
            guard case .bool = value else { return ["\(path): not a boolean"] }
            return []
        case "array":
            guard case .array(let items) = value else { return ["\(path): not an array"] }
            var found: [String] = []
            if case .integer(let most)? = schema["maxLength"], items.count > most { found.append("\(path): \(items.count) items > \(most)") }
            if let item = schema["items"] {
                for (index, element) in items.enumerated() { found += problems(element, item, in: nsid, at: "\(path)[\(index)]") }
            }
            return found
        case "unknown":
            guard case .object = value else { return ["\(path): an unknown must be an object"] }
            return []
        default:
            return []
        }
    }

    /// Whether `text` has the string format `format` (as the lexicon spec defines them, checked loosely where exact
    /// grammar is not the point).
    static func matches(_ text: String, format: String) -> Bool {
        switch format {
        case "datetime": return ISO8601Time.date(from: text) != nil && (text.hasSuffix("Z") || text.contains("+") || text.dropFirst(19).contains("-"))
        case "did": return text.hasPrefix("did:") && text.split(separator: ":").count >= 3
        case "handle": return RichText.isHandle(text)
        case "at-uri": return text.hasPrefix("at://")
        case "at-identifier": return text.hasPrefix("did:") || RichText.isHandle(text)
        case "cid": return text.count >= 8 && text.allSatisfy { $0.isLetter || $0.isNumber }
        case "uri": return text.wholeMatch(of: /[a-zA-Z][a-zA-Z0-9+.\-]*:\S+/) != nil
        case "nsid": return text.split(separator: ".").count >= 3
        case "tid": return TID(text) != nil
        case "record-key": return !text.isEmpty && text != "." && text != ".." && text.utf8.count <= 512
        case "language": return !text.isEmpty && !text.contains(" ")
        default: return true
        }
    }
}
