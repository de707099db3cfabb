package dev.muster.common.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * HPACK, the header compression of HTTP/2 (RFC 7541), for a small server: the header field, the static table, and the
 * encoding of answers. The requests' header blocks are read by {@link HpackDecoder}.
 *
 * <p>The encoding side ({@link #status}, {@link #literal}) deliberately stays minimal: it never adds to the client's
 * dynamic table (only the static table and literals without indexing) and never Huffman-codes, so the client's
 * decoder state stays trivial and nothing here has to track it. Stateless.
 */
final class Hpack {
    private Hpack() {}

    /** A header field; its {@link #size} is the one the dynamic table counts (RFC 7541 section 4.1). */
    record HeaderField(String name, String value) {
        HeaderField {
            Objects.requireNonNull(name);
            Objects.requireNonNull(value);
        }

        /** The name's and the value's octets plus 32; the strings hold one octet per char. */
        int size() {
            return name.length() + value.length() + 32;
        }
    }

    /** RFC 7541, Appendix A: index 1 is element 0. */
    static final List<HeaderField> STATIC_TABLE = List.of(
            new HeaderField(":authority", ""),
            new HeaderField(":method", "GET"),
            new HeaderField(":method", "POST"),
            new HeaderField(":path", "/"),
            new HeaderField(":path", "/index.html"),
            new HeaderField(":scheme", "http"),
            new HeaderField(":scheme", "https"),
            new HeaderField(":status", "200"),
            new HeaderField(":status", "204"),
            new HeaderField(":status", "206"),
            new HeaderField(":status", "304"),
            new HeaderField(":status", "400"),
            new HeaderField(":status", "404"),
            new HeaderField(":status", "500"),
            new HeaderField("accept-charset", ""),
            new HeaderField("accept-encoding", "gzip, deflate"),
            new HeaderField("accept-language", ""),
            new HeaderField("accept-ranges", ""),
            new HeaderField("accept", ""),
            new HeaderField("access-control-allow-origin", ""),
            new HeaderField("age", ""),
            new HeaderField("allow", ""),
            new HeaderField("authorization", ""),
            new HeaderField("cache-control", ""),
            new HeaderField("content-disposition", ""),
            new HeaderField("content-encoding", ""),
            new HeaderField("content-language", ""),
            new HeaderField("content-length", ""),
            new HeaderField("content-location", ""),
            new HeaderField("content-range", ""),
            new HeaderField("content-type", ""),
            new HeaderField("cookie", ""),
            new HeaderField("date", ""),
            new HeaderField("etag", ""),
            new HeaderField("expect", ""),
            new HeaderField("expires", ""),
            new HeaderField("from", ""),
            new HeaderField("host", ""),
            new HeaderField("if-match", ""),
            new HeaderField("if-modified-since", ""),
            new HeaderField("if-none-match", ""),
            new HeaderField("if-range", ""),
            new HeaderField("if-unmodified-since", ""),
            new HeaderField("last-modified", ""),
            new HeaderField("link", ""),
            new HeaderField("location", ""),
            new HeaderField("max-forwards", ""),
            new HeaderField("proxy-authenticate", ""),
            new HeaderField("proxy-authorization", ""),
            new HeaderField("range", ""),
            new HeaderField("referer", ""),
            new HeaderField("refresh", ""),
            new HeaderField("retry-after", ""),
            new HeaderField("server", ""),
            new HeaderField("set-cookie", ""),
            new HeaderField("strict-transport-security", ""),
            new HeaderField("transfer-encoding", ""),
            new HeaderField("user-agent", ""),
            new HeaderField("vary", ""),
            new HeaderField("via", ""),
            new HeaderField("www-authenticate", ""));

    // ---- encoding (responses) ----

    /**
     * Writes {@code :status}: the static table's entry for 200, 204, 206, 304, 400, 404 and 500, otherwise a literal
     * without indexing that names static entry 8 and carries the three digits.
     */
    static void status(ByteArrayOutputStream out, int status) {
        if (status < 100 || status > 999) {
            throw new IllegalArgumentException("not a three-digit HTTP status: " + status);
        }
        int index = switch (status) {
            case 200 -> 8;
            case 204 -> 9;
            case 206 -> 10;
            case 304 -> 11;
            case 400 -> 12;
            case 404 -> 13;
            case 500 -> 14;
            default -> 0;
        };
        if (index != 0) {
            writeInt(out, 0x80, 7, index); // indexed header field
        } else {
            writeInt(out, 0x00, 4, 8); // literal without indexing, name :status from the static table
            writeString(out, Integer.toString(status).getBytes(StandardCharsets.US_ASCII));
        }
    }

    /**
     * Writes a literal header field without indexing with a new name: both strings raw, the value as UTF-8.
     *
     * @throws IllegalArgumentException if the name is empty or has a character other than visible ASCII, or an
     *     upper-case letter (HTTP/2 requires lower-case names)
     */
    static void literal(ByteArrayOutputStream out, String name, String value) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty header name");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= 0x20 || c >= 0x7f || (c >= 'A' && c <= 'Z')) {
                throw new IllegalArgumentException("not a lower-case header name: " + name);
            }
        }
        out.write(0x00);
        writeString(out, name.getBytes(StandardCharsets.US_ASCII));
        writeString(out, value.getBytes(StandardCharsets.UTF_8));
    }

    /** An integer with an N-bit prefix (RFC 7541 section 5.1); {@code flags} are the first octet's other bits. */
    static void writeInt(ByteArrayOutputStream out, int flags, int prefixBits, int value) {
        int max = (1 << prefixBits) - 1;
        if (value < max) {
            out.write(flags | value);
            return;
        }
        out.write(flags | max);
        value -= max;
        while (value >= 0x80) {
            out.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write(value);
    }

    /** A raw (not Huffman-coded) string literal. */
    private static void writeString(ByteArrayOutputStream out, byte[] octets) {
        writeInt(out, 0x00, 7, octets.length);
        out.writeBytes(octets);
    }
}
