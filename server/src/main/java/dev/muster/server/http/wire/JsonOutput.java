package dev.muster.server.http.wire;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable UTF-8 JSON byte buffer with correct string escaping. The encoder writes structure
 * (braces, keys, commas) itself; this class only guarantees that strings come out as valid JSON:
 * {@code "} and {@code \} escaped, control characters as {@code \n}, {@code \t}, ... or {@code \\u00XX},
 * non-ASCII as UTF-8, and unpaired surrogates replaced by U+FFFD (as Go's encoder does for invalid
 * UTF-8). Not thread-safe: one instance per answer.
 */
final class JsonOutput {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NULL = {'n', 'u', 'l', 'l'};

    private byte[] buf;
    private int size;

    JsonOutput(int initialCapacity) {
        buf = new byte[Math.max(16, initialCapacity)];
    }

    /** Appends ASCII structure text as is (the caller guarantees it is valid JSON structure). */
    JsonOutput raw(String ascii) {
        int n = ascii.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[size++] = (byte) ascii.charAt(i);
        }
        return this;
    }

    JsonOutput raw(char asciiChar) {
        ensure(1);
        buf[size++] = (byte) asciiChar;
        return this;
    }

    /** Appends bytes verbatim (a JSON value copied from a request body). */
    JsonOutput bytes(byte[] source, int offset, int length) {
        ensure(length);
        System.arraycopy(source, offset, buf, size, length);
        size += length;
        return this;
    }

    /** Appends a whole number; a non-negative one (scores, counts) digit by digit, without a String. */
    JsonOutput number(long value) {
        if (value < 0) {
            return raw(Long.toString(value));
        }
        int n = digits(value);
        ensure(n);
        for (int i = size + n - 1; i >= size; i--, value /= 10) {
            buf[i] = (byte) ('0' + value % 10);
        }
        size += n;
        return this;
    }

    /** How many bytes {@link #number} writes for a non-negative {@code value}. */
    static int digits(long value) {
        int n = 1;
        for (long v = value; v >= 10; v /= 10) {
            n++;
        }
        return n;
    }

    JsonOutput nullValue() {
        return bytes(NULL, 0, NULL.length);
    }

    /** Appends {@code s} as a quoted JSON string. */
    JsonOutput string(String s) {
        raw('"');
        stringChars(s);
        return raw('"');
    }

    /** Appends {@code s}'s characters as a JSON string has them between its quotes (escaped, UTF-8). */
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): the exact ASCII copy wanted here
    JsonOutput stringChars(String s) {
        int n = s.length();
        ensure(n);
        if (plainAscii(s, n)) { // node names, reasons: the common case, copied in one go
            s.getBytes(0, n, buf, size);
            size += n;
            return this;
        }
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                if (c >= 0x20 && c != '"' && c != '\\') {
                    ensure(1);
                    buf[size++] = (byte) c;
                } else {
                    escape(c);
                }
            } else if (c < 0x800) {
                ensure(2);
                buf[size++] = (byte) (0xC0 | (c >> 6));
                buf[size++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                ensure(4);
                buf[size++] = (byte) (0xF0 | (cp >> 18));
                buf[size++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                buf[size++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                buf[size++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                char bmp = Character.isSurrogate(c) ? '\uFFFD' : c;
                ensure(3);
                buf[size++] = (byte) (0xE0 | (bmp >> 12));
                buf[size++] = (byte) (0x80 | ((bmp >> 6) & 0x3F));
                buf[size++] = (byte) (0x80 | (bmp & 0x3F));
            }
        }
        return this;
    }

    private static boolean plainAscii(String s, int n) {
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
                return false;
            }
        }
        return true;
    }

    private void escape(char c) {
        ensure(6);
        buf[size++] = '\\';
        switch (c) {
            case '"' -> buf[size++] = '"';
            case '\\' -> buf[size++] = '\\';
            case '\n' -> buf[size++] = 'n';
            case '\r' -> buf[size++] = 'r';
            case '\t' -> buf[size++] = 't';
            case '\b' -> buf[size++] = 'b';
            case '\f' -> buf[size++] = 'f';
            default -> {
                buf[size++] = 'u';
                buf[size++] = '0';
                buf[size++] = '0';
                buf[size++] = HEX[c >> 4];
                buf[size++] = HEX[c & 0xF];
            }
        }
    }

    private void ensure(int more) {
        if (size + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + more));
        }
    }

    /** The answer's bytes: the buffer itself when it was sized exactly (no copy), else a copy of what was written. */
    byte[] toByteArray() {
        return size == buf.length ? buf : Arrays.copyOf(buf, size);
    }
}
