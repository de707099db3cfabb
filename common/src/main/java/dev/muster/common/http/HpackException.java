package dev.muster.common.http;

/** A header block that does not decode (RFC 7541): the HTTP/2 connection ends with COMPRESSION_ERROR naming it. */
final class HpackException extends Exception {
    HpackException(String message) {
        super(message, null, false, false);
    }
}
