import HTTPTypes
import Hummingbird

/// Lets web apps served from the configured origins call the API from a browser (CORS): answers
/// their preflight requests and marks their answers, errors included, as readable by them. A
/// request from any other origin gets no such header, and its browser keeps it from the page.
///
/// Hummingbird's own `CORSMiddleware` takes its list of origins as variadic arguments only,
/// where the server's list comes from its configuration.
struct CrossOriginMiddleware: RouterMiddleware {
    typealias Context = SyncRequestContext
    /// The origins allowed (`https://app.example.com`); `*` allows every origin.
    let origins: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // `*` stands for every origin that is one: `null` (a sandboxed frame, a file, a redirect)
        // is shared by pages of any provenance, and is echoed only when listed by name.
        guard let origin = request.headers[.origin], origins.contains(origin) || (origins.contains("*") && origin != "null") else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var headers = Self.headers(for: origin)
            headers[.accessControlAllowMethods] = "GET, HEAD, POST"
            headers[.accessControlAllowHeaders] = "Authorization, Content-Type"
            headers[.accessControlMaxAge] = "600"
            return Response(status: .noContent, headers: headers)
        }
        var response = try await next(request, context)
        for field in Self.headers(for: origin) { response.headers[field.name] = field.value }
        response.headers[.accessControlExposeHeaders] = "X-Request-ID, Retry-After, ObjectGraph-Replayed"
        return response
    }

    private static func headers(for origin: String) -> HTTPFields {
        [.accessControlAllowOrigin: origin, .vary: "Origin"]
    }
}
