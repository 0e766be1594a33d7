import Dispatch
import Hummingbird
import Logging

/// Writes one line per request once its answer is sent (a live stream's when it ends): the
/// request's ID (the logger's `hb.request.id`), the user, the route, the status and the duration;
/// and counts it in the metrics. Request text goes into the line escaped (see `requestText`).
///
/// A request refused without a valid token (anyone can send any number) gets no line of its own:
/// such refusals are logged sampled, a count per status every ten seconds.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = SyncRequestContext
    let metrics: ServerMetrics
    let anonymousRefusals = EventSampler<UInt16>()

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            // The error middleware inside answers every failure; what escapes it is Hummingbird's
            // to answer, logged here as what it will be.
            log(request, context, status: (error as? any HTTPResponseError)?.status ?? .internalServerError, since: start)
            throw error
        }
        let status = response.status
        let body = response.body
        // Hummingbird's own `withPostWriteClosure` is not public: the same, through the public API.
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { log(request, context, status: status, since: start) }
            try await body.write(writer)
        }
        return response
    }

    private func log(_ request: Request, _ context: Context, status: HTTPResponse.Status, since start: UInt64) {
        let nanoseconds = DispatchTime.now().uptimeNanoseconds - start
        let milliseconds = Double(nanoseconds) / 1e6
        let matched = context.endpointPath.flatMap { $0 == "NotFound" ? nil : $0 }
        // A path no route has is not a metric's label: anyone could make up any number of them.
        metrics.request(
            route: matched ?? "none", method: request.method.rawValue, status: Int(status.code),
            duration: .nanoseconds(Int64(clamping: nanoseconds)))
        guard context.logger.logLevel <= .info else { return }  // the line's metadata costs only when written
        if context.notes.user == nil, status.code >= 400 {
            guard let count = anonymousRefusals.count(UInt16(clamping: status.code)) else { return }
            context.logger.info(
                "Refused requests without a valid token",
                metadata: ["status": .stringConvertible(status.code), "count": .stringConvertible(count)])
            return
        }
        let route = matched ?? request.uri.path
        var metadata: Logger.Metadata = [
            "method": .string(request.method.rawValue),
            "route": .requestText(route),
            "status": .stringConvertible(status.code),
            "duration_ms": .string(String(format: "%.3f", milliseconds))
        ]
        if let user = context.notes.user { metadata["user"] = .requestText(user.name) }
        context.logger.info("Request", metadata: metadata)
    }
}
