package dev.muster.common.http;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * An answer for {@link Http1Server} to write: status, Content-Type, further headers (e.g. {@code Allow}) and the body.
 * The server adds Content-Length and, when it closes the connection afterwards, {@code Connection: close}.
 *
 * @param headers further headers by name as they should be written; never Content-Length or Connection
 */
public record Http1Response(int status, String contentType, Map<String, String> headers, byte[] body) {
    public Http1Response {
        headers = Map.copyOf(headers);
    }

    public Http1Response(int status, String contentType, byte[] body) {
        this(status, contentType, Map.of(), body);
    }

    /** A {@code text/plain; charset=utf-8} answer. */
    public static Http1Response text(int status, String text) {
        return new Http1Response(status, "text/plain; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
    }

    /** The same answer with one more header. */
    public Http1Response withHeader(String name, String value) {
        Map<String, String> more = new java.util.LinkedHashMap<>(headers);
        more.put(name, value);
        return new Http1Response(status, contentType, more, body);
    }
}
