package dev.muster.common.http;

import java.io.Serial;

/**
 * A header block that does not follow HPACK (RFC 7541). The decoder that threw it is no longer usable: HTTP/2 closes
 * the connection with COMPRESSION_ERROR.
 */
final class HpackException extends Exception {
    @Serial private static final long serialVersionUID = 1L;

    HpackException(String message) {
        super(message);
    }
}
