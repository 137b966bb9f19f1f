import Foundation
import Hummingbird
import Logging

/// An error of the status API, answered as `{"errors": [{"message": ..., "code": ...}]}` with a stable four-digit
/// code (the codes are listed in docs/status-page.md and the API's OpenAPI document).
struct APIError: Error, Sendable {
    /// The HTTP status.
    var status: HTTPResponse.Status
    /// The stable code.
    var code: Code
    /// What went wrong, for a person.
    var message: String

    /// The stable codes.
    enum Code: String, Sendable {
        /// No such path.
        case notFound = "1001"
        /// A parameter is malformed.
        case badParameter = "1002"
        /// The password is missing or wrong.
        case authenticationRequired = "1003"
        /// `STATUS_PASSWORD` is not set: only `/healthz` answers.
        case statusPageOff = "1004"
        /// Nothing is stored for what was asked (a day with no plan).
        case noSuchResource = "1005"
        /// The store did not answer.
        case storeUnavailable = "1006"
        /// The method is not allowed (the API is read-only).
        case methodNotAllowed = "1007"
        /// Too many wrong passwords from this client: it waits (`Retry-After`) before its password is checked again.
        case tooManyFailedLogins = "1008"
        /// The bot is starting and its stores are not open yet.
        case starting = "1009"
    }

    /// The error's response.
    func response(headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The error's body: `{"errors": [{"message": ..., "code": ...}]}`.
    var body: Data {
        struct Body: Encodable {
            struct Item: Encodable {
                var message: String
                var code: String
            }
            var errors: [Item]
        }
        return (try? StatusJSON.encoder.encode(Body(errors: [.init(message: message, code: code.rawValue)]))) ?? Data()
    }
}

/// Turns whatever a route throws into the API's error body: Hummingbird's 404 and 405, the API's own errors, and any
/// other failure (a store that does not answer) as 503 with a line in the log, never a stack trace.
struct ErrorBodies: RouterMiddleware {
    typealias Context = StatusRequestContext
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            return APIError(status: .methodNotAllowed, code: .methodNotAllowed, message: "The status API is read-only: use GET.").response()
        }
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return error.response()
        } catch let error as HTTPError where error.status == .notFound {
            return APIError(status: .notFound, code: .notFound, message: "No such path: \(request.uri.path). The API is under /api/v1/.").response()
        } catch let error as HTTPError where error.status == .methodNotAllowed {
            return APIError(status: .methodNotAllowed, code: .methodNotAllowed, message: "The status API is read-only: use GET.").response()
        } catch let error as HTTPError {
            return APIError(status: error.status, code: .badParameter, message: "The request could not be read (\(error.status.code)).").response()
        } catch {
            logger.warning("status: \(request.method) \(request.uri.path) failed: \(error)")
            return APIError(
                status: .serviceUnavailable, code: .storeUnavailable,
                message: "The bot's store did not answer; try again shortly (/healthz says what is wrong)."
            ).response()
        }
    }
}

/// JSON as the status API writes it: keys sorted (so that equal content gives equal ETags), dates in ISO 8601.
enum StatusJSON {
    /// The encoder.
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
