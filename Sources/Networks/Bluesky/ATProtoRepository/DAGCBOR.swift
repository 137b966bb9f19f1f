import CCBOR

/// A decoded DAG-CBOR item: what the AT Protocol's records, commits and tree nodes are made of.
public indirect enum CBORValue: Sendable, Equatable {
    /// An integer (DAG-CBOR's integers fit in 64 bits).
    case integer(Int64)
    /// A byte string.
    case bytes([UInt8])
    /// A text string.
    case text(String)
    /// An array.
    case array([CBORValue])
    /// A map with text keys (DAG-CBOR allows no other keys).
    case map([String: CBORValue])
    /// A link to another block: tag 42 around a CID.
    case link(CID)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
    /// A float.
    case float(Double)

    /// The value under `key` of a map, nil for anything else.
    public subscript(key: String) -> CBORValue? {
        if case .map(let map) = self { return map[key] }
        return nil
    }
    /// The text of a text string.
    public var text: String? {
        if case .text(let text) = self { return text }
        return nil
    }
    /// The link of a link.
    public var link: CID? {
        if case .link(let cid) = self { return cid }
        return nil
    }
}

/// Decodes DAG-CBOR with libcbor: one item from a block's bytes, converted to `CBORValue`. Everything DAG-CBOR does
/// not allow (indefinite lengths, keys that are not text, tags other than 42, `undefined`) is refused, as are items
/// nested deeper than `maximumDepth`; nothing read from a file can crash the process.
public enum DAGCBOR {
    /// How deep items may nest (a post record is about 6 deep; a tree node 4).
    public static let maximumDepth = 64

    /// The item `bytes` hold, which must be all of them.
    public static func decode(_ bytes: some Collection<UInt8>) throws(RepositoryError) -> CBORValue {
        let buffer = Array(bytes)
        guard !buffer.isEmpty else { throw RepositoryError("an empty block") }
        var result = cbor_load_result()
        var root: UnsafeMutablePointer<cbor_item_t>? = try buffer.withUnsafeBufferPointer { (pointer) throws(RepositoryError) in
            // libcbor allocates what an array or map declares before reading it: a declared size past what the block
            // could hold is refused first, so that a crafted block cannot ask for gigabytes.
            try checkDeclaredSizes(pointer)
            return cbor_load(pointer.baseAddress, pointer.count, &result)
        }
        defer { if root != nil { cbor_decref(&root) } }
        guard let item = root, result.error.code == CBOR_ERR_NONE else {
            throw RepositoryError("a block that is not CBOR (libcbor: \(describe(result.error.code)) at byte \(result.error.position))")
        }
        guard result.read == buffer.count else { throw RepositoryError("a block with \(buffer.count - result.read) bytes after its item") }
        return try value(of: item, depth: 0)
    }

    /// What the size check's callbacks see: the bytes left from the item being read, and whether a size was too large.
    private final class SizeCheck {
        var remaining = 0
        var tooLarge = false
    }

    /// Walks the items' heads with libcbor's streaming decoder (which allocates nothing) and refuses an array or map
    /// that declares more elements than there are bytes left.
    private static func checkDeclaredSizes(_ buffer: UnsafeBufferPointer<UInt8>) throws(RepositoryError) {
        guard let base = buffer.baseAddress else { return }
        let check = SizeCheck()
        var callbacks = cbor_empty_callbacks
        callbacks.array_start = { context, size in
            guard let context else { return }
            let check = Unmanaged<SizeCheck>.fromOpaque(context).takeUnretainedValue()
            if size > check.remaining { check.tooLarge = true }
        }
        callbacks.map_start = { context, size in
            guard let context else { return }
            let check = Unmanaged<SizeCheck>.fromOpaque(context).takeUnretainedValue()
            if size > check.remaining / 2 { check.tooLarge = true }
        }
        var offset = 0
        while offset < buffer.count {
            check.remaining = buffer.count - offset
            let step = withExtendedLifetime(check) {
                cbor_stream_decode(base + offset, buffer.count - offset, &callbacks, Unmanaged.passUnretained(check).toOpaque())
            }
            guard step.status == CBOR_DECODER_FINISHED, step.read > 0 else {
                throw RepositoryError("a block that is not CBOR (cut short or malformed at byte \(offset))")
            }
            guard !check.tooLarge else { throw RepositoryError("an array or map declaring more elements than its block holds (at byte \(offset))") }
            offset += step.read
        }
    }

    private static func describe(_ code: cbor_error_code) -> String {
        switch code {
        case CBOR_ERR_NOTENOUGHDATA: "cut short"
        case CBOR_ERR_NODATA: "no data"
        case CBOR_ERR_MALFORMATED: "malformed"
        case CBOR_ERR_MEMERROR: "out of memory"
        case CBOR_ERR_SYNTAXERROR: "syntax error"
        default: "error \(code.rawValue)"
        }
    }

    private static func value(of item: UnsafeMutablePointer<cbor_item_t>, depth: Int) throws(RepositoryError) -> CBORValue {
        guard depth < maximumDepth else { throw RepositoryError("items nested deeper than \(maximumDepth)") }
        switch cbor_typeof(item) {
        case CBOR_TYPE_UINT:
            let value = cbor_get_int(item)
            guard value <= UInt64(Int64.max) else { throw RepositoryError("an integer past 64 signed bits") }
            return .integer(Int64(value))
        case CBOR_TYPE_NEGINT:
            let value = cbor_get_int(item)
            guard value <= UInt64(Int64.max) else { throw RepositoryError("an integer past 64 signed bits") }
            return .integer(-1 - Int64(value))
        case CBOR_TYPE_BYTESTRING:
            guard cbor_bytestring_is_definite(item) else { throw RepositoryError("a byte string of indefinite length") }
            return .bytes(Array(UnsafeBufferPointer(start: cbor_bytestring_handle(item), count: cbor_bytestring_length(item))))
        case CBOR_TYPE_STRING:
            guard cbor_string_is_definite(item) else { throw RepositoryError("a text string of indefinite length") }
            let bytes = UnsafeBufferPointer(start: cbor_string_handle(item), count: cbor_string_length(item))
            guard let text = String(validating: bytes, as: UTF8.self) else { throw RepositoryError("a text string that is not UTF-8") }
            return .text(text)
        case CBOR_TYPE_ARRAY:
            guard cbor_array_is_definite(item) else { throw RepositoryError("an array of indefinite length") }
            let elements = UnsafeBufferPointer(start: cbor_array_handle(item), count: cbor_array_size(item))
            var array: [CBORValue] = []
            array.reserveCapacity(elements.count)
            for element in elements {
                guard let element else { throw RepositoryError("an array with a missing element") }
                array.append(try value(of: element, depth: depth + 1))
            }
            return .array(array)
        case CBOR_TYPE_MAP:
            guard cbor_map_is_definite(item) else { throw RepositoryError("a map of indefinite length") }
            let pairs = UnsafeBufferPointer(start: cbor_map_handle(item), count: cbor_map_size(item))
            var map: [String: CBORValue] = [:]
            for pair in pairs {
                guard let key = pair.key, let entry = pair.value, case .text(let name) = try value(of: key, depth: depth + 1) else {
                    throw RepositoryError("a map whose key is not text")
                }
                guard map.updateValue(try value(of: entry, depth: depth + 1), forKey: name) == nil else {
                    throw RepositoryError("a map with the key \"\(name)\" twice")
                }
            }
            return .map(map)
        case CBOR_TYPE_TAG:
            guard cbor_tag_value(item) == 42 else { throw RepositoryError("a CBOR tag other than 42 (a link)") }
            var tagged: UnsafeMutablePointer<cbor_item_t>? = cbor_tag_item(item)
            defer { if tagged != nil { cbor_decref(&tagged) } }
            guard let inner = tagged, case .bytes(let bytes) = try value(of: inner, depth: depth + 1), bytes.first == 0 else {
                throw RepositoryError("a link that is not a byte string starting with 0")
            }
            return .link(try CID(bytes: bytes.dropFirst()))
        case CBOR_TYPE_FLOAT_CTRL:
            if cbor_float_ctrl_is_ctrl(item) {
                switch cbor_ctrl_value(item) {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22: return .null
                default: throw RepositoryError("a CBOR simple value other than true, false and null")
                }
            }
            return .float(cbor_float_get_float(item))
        default:
            throw RepositoryError("an unknown CBOR item")
        }
    }
}

/// Why a repository export could not be read.
public struct RepositoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong, in words.
    public var reason: String
    /// An error saying `reason`.
    public init(_ reason: String) { self.reason = reason }
    /// The reason.
    public var description: String { reason }
}
