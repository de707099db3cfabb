package dev.muster.common.http;

import java.security.cert.X509Certificate;
import java.util.Map;

/**
 * One HTTP/1.x request as {@link Http1Server} read it: the method, the path without its query, the headers by
 * lower-case name (a repeated header keeps its values joined by ", ", as RFC 9110 allows), the whole body, and the
 * certificate the client presented in its TLS handshake.
 *
 * @param body never null; empty without a body
 * @param peer the client's certificate (its CA already checked by the handshake); null over plain HTTP or without one
 */
public record Http1Request(String method, String path, Map<String, String> headers, byte[] body, X509Certificate peer) {
    /** A request without a client certificate. */
    public Http1Request(String method, String path, Map<String, String> headers, byte[] body) {
        this(method, path, headers, body, null);
    }

    /** The header's value, or null; the name in any case. */
    public String header(String name) {
        return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }
}
