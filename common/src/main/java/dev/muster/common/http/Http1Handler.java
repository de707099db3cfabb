package dev.muster.common.http;

/**
 * Answers one request. Over HTTP/1.1 called on the connection's own thread, so it may block (the bind barrier parks
 * here); the next request on that connection waits for it, as HTTP/1.1 without pipelining does anyway. Over HTTP/2
 * called on a virtual thread of the request's own, so it may block without holding up the connection's other requests.
 * A thrown exception becomes a 500 naming it (over HTTP/1.1 the connection is then closed).
 */
@FunctionalInterface
public interface Http1Handler {
    Http1Response handle(Http1Request request) throws Exception;

    /**
     * True when answering {@code request} never waits for another request (a filter does not; a bind waits for its
     * gang's other members): over HTTP/2 it is then answered on the connection's reading thread, without a hand-off to
     * a thread of its own, and the connection reads its next frame once it is answered. By default false.
     */
    default boolean answersAtOnce(Http1Request request) {
        return false;
    }

    /**
     * The answer to a request whose body exceeds the server's limit; {@code head} carries its method, path and headers
     * and an empty body (the body is not read). Over HTTP/1.1 the connection is closed after it; over HTTP/2 only the
     * request's stream is reset and the connection serves the next request.
     */
    default Http1Response bodyTooLarge(Http1Request head, long limit) {
        return Http1Response.text(413, "request body exceeds the limit of " + limit + " bytes\n");
    }
}
