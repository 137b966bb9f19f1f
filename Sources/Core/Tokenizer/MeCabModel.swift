import CMeCab
import Foundation
import Synchronization

/// The MeCab dictionary loaded once, and a pool of taggers with their lattices: MeCab's model is shared between
/// threads, but parsing with one tagger and lattice is not thread-safe, so each concurrent caller borrows its own.
///
/// This is the only type that touches MeCab's C API; what leaves it are Swift values.
final class MeCabModel: Sendable {
    /// A parsed morpheme, valid only during the visit: its surface's UTF-8 bytes and the dictionary's
    /// NUL-terminated feature string (`名詞,一般,*,...` for IPAdic).
    struct Morpheme {
        var surface: UnsafeRawBufferPointer
        var feature: UnsafePointer<CChar>
        /// Where the surface starts in the text, in UTF-8 bytes.
        var offset: Int
    }

    // The model is immutable after loading and MeCab documents it as thread-safe.
    nonisolated(unsafe) private let model: OpaquePointer
    private let idleWorkers: Mutex<[Worker]>

    /// Loads the dictionary in `dictionaryDirectory`, or MeCab's default one (from mecabrc) when nil.
    ///
    /// MeCab reads a mecabrc even when given a dictionary, and fails when there is none (as where packages are
    /// unpacked outside `/etc`, like Heroku's apt buildpack): with a dictionary directory and no `MECABRC`, the
    /// dictionary's own `dicrc` serves as the rc file.
    init(dictionaryDirectory: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        var arguments = ["mecab"]
        if let dictionaryDirectory {
            arguments += ["-d", dictionaryDirectory]
            if environment["MECABRC"] == nil { arguments += ["-r", (dictionaryDirectory as NSString).appendingPathComponent("dicrc")] }
        }
        let loaded: OpaquePointer? = Self.withCArguments(arguments) { argc, argv in mecab_model_new(argc, argv) }
        guard let loaded else {
            throw TokenizerError.dictionaryUnavailable(directory: dictionaryDirectory, reason: Self.globalErrorText())
        }
        if let info = mecab_model_dictionary_info(loaded), let charset = info.pointee.charset {
            let name = String(cString: charset).lowercased().replacingOccurrences(of: "-", with: "")
            guard name == "utf8" else {
                mecab_model_destroy(loaded)
                throw TokenizerError.dictionaryNotUTF8(charset: String(cString: charset))
            }
        }
        model = loaded
        idleWorkers = Mutex([])
    }

    deinit {
        idleWorkers.withLock { $0.removeAll() }  // workers must go before the model they were made from
        mecab_model_destroy(model)
    }

    /// Parses `text` and calls `visit` with each morpheme in order.
    func forEachMorpheme(in text: String, _ visit: (Morpheme) -> Void) throws {
        let worker = try idleWorkers.withLock { $0.popLast() } ?? Worker(model: model)
        defer { idleWorkers.withLock { $0.append(worker) } }
        var text = text
        try text.withUTF8 { bytes in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            try base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { sentence in
                mecab_lattice_set_sentence2(worker.lattice, sentence, bytes.count)
                guard mecab_parse_lattice(worker.tagger, worker.lattice) != 0 else {
                    throw TokenizerError.parseFailed(reason: String(cString: mecab_lattice_strerror(worker.lattice)))
                }
                // Surfaces point into `sentence` and are not NUL-terminated: they are sliced with their length.
                var node = mecab_lattice_get_bos_node(worker.lattice)
                while let current = node {
                    let stat = Int(current.pointee.stat)
                    if stat == Int(MECAB_NOR_NODE) || stat == Int(MECAB_UNK_NODE),
                        let surface = current.pointee.surface, let feature = current.pointee.feature
                    {
                        let offset = UnsafeRawPointer(surface) - UnsafeRawPointer(sentence)
                        let length = Int(current.pointee.length)
                        if offset >= 0, offset + length <= bytes.count {
                            visit(Morpheme(surface: UnsafeRawBufferPointer(start: surface, count: length), feature: feature, offset: offset))
                        }
                    }
                    node = current.pointee.next
                }
            }
        }
    }

    /// One tagger and lattice, used by one caller at a time: the pool hands each to one caller, which is why
    /// crossing threads is safe although MeCab's parsing state is not.
    private final class Worker: @unchecked Sendable {
        let tagger: OpaquePointer
        let lattice: OpaquePointer

        init(model: OpaquePointer) throws {
            guard let tagger = mecab_model_new_tagger(model) else {
                throw TokenizerError.dictionaryUnavailable(directory: nil, reason: MeCabModel.globalErrorText())
            }
            guard let lattice = mecab_model_new_lattice(model) else {
                mecab_destroy(tagger)
                throw TokenizerError.dictionaryUnavailable(directory: nil, reason: MeCabModel.globalErrorText())
            }
            self.tagger = tagger
            self.lattice = lattice
        }

        deinit {
            mecab_lattice_destroy(lattice)
            mecab_destroy(tagger)
        }
    }

    // `mecab_strerror(NULL)` reads a global buffer: calls are serialised.
    private static let globalErrorLock = Mutex(())

    private static func globalErrorText() -> String {
        globalErrorLock.withLock { _ in
            guard let text = mecab_strerror(nil) else { return "unknown error" }
            return String(cString: text)
        }
    }

    private static func withCArguments<Result>(
        _ arguments: [String], _ body: (Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Result
    ) -> Result {
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        defer { pointers.forEach { free($0) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in body(Int32(arguments.count), buffer.baseAddress!) }
    }
}
