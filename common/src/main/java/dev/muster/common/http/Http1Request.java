package dev.muster.common.http;

import java.util.Map;

/**
 * One HTTP/1.x request as {@link Http1Server} read it: the method, the path without its query, the headers by
 * lower-case name (a repeated header keeps its values joined by ", ", as RFC 9110 allows), and the whole body.
 *
 * @param body never null; empty without a body
 */
public record Http1Request(String method, String path, Map<String, String> headers, byte[] body) {
    /** The header's value, or null; the name in any case. */
    public String header(String name) {
        return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }
}
