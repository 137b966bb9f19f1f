public import BotCore
public import NIOCore
public import PostgresNIO

/// Post and account ids are bound and read as Postgres `text` (migration 0015 made every id column `text`), and
/// their arrays as `text[]`. A value of another type (an id column a database has not migrated) is read as its text.
extension NetworkIdentifier: PostgresNonThrowingEncodable, PostgresEncodable {
    /// `text`.
    public static var psqlType: PostgresDataType { .text }
    /// Binary: the id's UTF-8 bytes.
    public static var psqlFormat: PostgresFormat { .binary }

    /// Writes the id's UTF-8 bytes.
    public func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}

extension NetworkIdentifier: PostgresDecodable {
    /// The id in a `text` value (a `bigint` one as its decimal text).
    public init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat, context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        switch (format, type) {
        case (.binary, .int8):
            guard let number = buffer.readInteger(as: Int64.self) else { throw PostgresDecodingError.Code.failure }
            self.init(number)
        default:
            self.init(try String(from: &buffer, type: type, format: format, context: context))
        }
    }
}

extension NetworkIdentifier: PostgresArrayEncodable, PostgresArrayDecodable {
    /// `text[]`.
    public static var psqlArrayType: PostgresDataType { .textArray }
}
