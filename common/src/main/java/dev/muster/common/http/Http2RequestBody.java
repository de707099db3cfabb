package dev.muster.common.http;

import java.util.Arrays;

/**
 * An HTTP/2 request's body as its DATA arrives, owned by the connection's reading thread until it is handed to the
 * handler. Its array doubles as bytes arrive but never grows past the declared Content-Length, so a body of the length
 * it declared is handed to the handler in that array, without a copy; memory is only ever spent on bytes that arrived
 * (a declared length alone allocates nothing).
 */
final class Http2RequestBody {
    private static final byte[] NONE = new byte[0];
    private final long declared; // -1: not declared
    private byte[] buf = NONE;
    private int size;

    Http2RequestBody(long declared) {
        this.declared = declared;
    }

    int size() {
        return size;
    }

    /** The request's Content-Length; -1 when it declared none. */
    long declared() {
        return declared;
    }

    void write(byte[] b, int offset, int length) {
        int needed = size + length;
        if (needed > buf.length) {
            long grown = Math.max(needed, Math.min(2L * buf.length, Integer.MAX_VALUE - 8));
            buf = Arrays.copyOf(buf, (int) (declared >= needed ? Math.min(grown, declared) : grown));
        }
        System.arraycopy(b, offset, buf, size, length);
        size = needed;
    }

    /** The body, in its own array when it filled it exactly. */
    byte[] bytes() {
        return size == buf.length ? buf : Arrays.copyOf(buf, size);
    }

    /** Forgets what arrived (a body over the limit). */
    void drop() {
        buf = NONE;
        size = 0;
    }
}
