package dev.muster.common.http;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The frames of one HTTP/2 connection (RFC 9113 §4 and §6): reads the client's preface, frame heads and payloads;
 * writes frames; builds the payloads of the control frames this server sends (SETTINGS, WINDOW_UPDATE, RST_STREAM,
 * GOAWAY). Also the protocol's frame types, flags, error codes and default sizes.
 *
 * <p>Threads: only the connection's reading thread reads. Any thread writes — the answers' threads and the reading
 * thread (SETTINGS and PING acknowledgements, window updates, resets) — each frame under {@link #writeLock}, so frames
 * never interleave mid-frame. A writer that needs a group of frames in a row (a response's HEADERS, CONTINUATIONs and
 * first DATA) holds the lock across them; it is reentrant. The read timeouts waited out are counted in a
 * {@link LongAdder} that the server's connections share.
 */
final class Http2Frames {
    static final int DATA = 0, HEADERS = 1, PRIORITY = 2, RST_STREAM = 3, SETTINGS = 4, PUSH_PROMISE = 5,
            PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8, CONTINUATION = 9;
    static final int END_STREAM = 0x1, ACK = 0x1, END_HEADERS = 0x4, PADDED = 0x8, PRIORITY_FLAG = 0x20;
    static final int NO_ERROR = 0, PROTOCOL_ERROR = 1, FLOW_CONTROL_ERROR = 3,
            FRAME_SIZE_ERROR = 6, REFUSED_STREAM = 7, COMPRESSION_ERROR = 9;
    static final int SETTINGS_MAX_CONCURRENT_STREAMS = 0x3, SETTINGS_INITIAL_WINDOW_SIZE = 0x4,
            SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;
    /** Frames this server reads: the protocol's default SETTINGS_MAX_FRAME_SIZE, which it never raises. */
    static final int MAX_FRAME = 16_384;
    /** Every flow-control window's size until SETTINGS or WINDOW_UPDATE change it. */
    static final int DEFAULT_WINDOW = 65_535;
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** A frame's 9-octet head; {@code stream} without the reserved bit. */
    record Head(int length, int type, int flags, int stream) {}

    /** Held for each frame written, and across a group of frames that must follow each other. */
    final ReentrantLock writeLock = new ReentrantLock();
    private final InputStream in;
    private final OutputStream out;
    private final byte[] head = new byte[9]; // reading thread only
    private final LongAdder timeoutsWaitedOut;

    /** @param timeoutsWaitedOut counts the read timeouts that {@link #readFully(byte[], int, BooleanSupplier)} waits out */
    Http2Frames(InputStream in, OutputStream out, LongAdder timeoutsWaitedOut) {
        this.in = new BufferedInputStream(in, MAX_FRAME + 9);
        this.out = new BufferedOutputStream(out, MAX_FRAME + 9);
        this.timeoutsWaitedOut = timeoutsWaitedOut;
    }

    /** Reads the client's connection preface. */
    void readPreface() throws IOException {
        byte[] preface = new byte[PREFACE.length];
        readFully(preface, preface.length);
        if (!Arrays.equals(preface, PREFACE)) {
            throw new IOException("not an HTTP/2 client preface after ALPN chose h2");
        }
    }

    /** The next frame's head (read as {@link #readFully(byte[], int, BooleanSupplier)} reads); its payload follows. */
    Head readHead(BooleanSupplier keepWaiting) throws IOException {
        readFully(head, 9, keepWaiting);
        return new Head((head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff, head[3] & 0xff, head[4] & 0xff,
                ((head[5] & 0x7f) << 24) | (head[6] & 0xff) << 16 | (head[7] & 0xff) << 8 | head[8] & 0xff);
    }

    /** Reads {@code n} octets into {@code b}; at the end of the stream an {@link EOFException}: the client closed. */
    void readFully(byte[] b, int n) throws IOException {
        readFully(b, n, () -> false);
    }

    /**
     * Reads {@code n} octets into {@code b}. A read timeout while {@code keepWaiting} says so (answers still running: the
     * connection is not idle) is waited out without losing the octets read so far — a frame may arrive in parts around
     * a quiet spell — and counted; any other timeout is thrown.
     */
    void readFully(byte[] b, int n, BooleanSupplier keepWaiting) throws IOException {
        int at = 0;
        while (at < n) {
            int r;
            try {
                r = in.read(b, at, n - at);
            } catch (SocketTimeoutException timeout) {
                if (keepWaiting.getAsBoolean()) {
                    timeoutsWaitedOut.increment();
                    continue;
                }
                throw timeout;
            }
            if (r < 0) {
                throw new EOFException("connection closed by the client");
            }
            at += r;
        }
    }

    /** One frame; takes the write lock (reentrant: a writer of a group of frames holds it already). */
    void write(int type, int flags, int stream, byte[] payload, int offset, int length, boolean flush) throws IOException {
        writeLock.lock();
        try {
            out.write(new byte[] {(byte) (length >>> 16), (byte) (length >>> 8), (byte) length, (byte) type, (byte) flags,
                    (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream});
            out.write(payload, offset, length);
            if (flush) {
                out.flush();
            }
        } finally {
            writeLock.unlock();
        }
    }

    /** Sends what a group of frames left buffered. */
    void flush() throws IOException {
        writeLock.lock();
        try {
            out.flush();
        } finally {
            writeLock.unlock();
        }
    }

    void windowUpdate(int stream, int increment) throws IOException {
        write(WINDOW_UPDATE, 0, stream, int32(increment), 0, 4, true);
    }

    void rst(int stream, int code) throws IOException {
        write(RST_STREAM, 0, stream, int32(code), 0, 4, true);
    }

    /** The last frame of a connection; a failure to write it is ignored, the connection ends anyway. */
    void goAway(int lastStreamId, int code, String message) {
        byte[] debug = message.getBytes(StandardCharsets.UTF_8);
        byte[] p = new byte[8 + Math.min(debug.length, 1024)];
        System.arraycopy(int32(lastStreamId), 0, p, 0, 4);
        System.arraycopy(int32(code), 0, p, 4, 4);
        System.arraycopy(debug, 0, p, 8, p.length - 8);
        try {
            write(GOAWAY, 0, 0, p, 0, p.length, true);
        } catch (IOException ignored) {
            // the connection ends anyway
        }
    }

    /** A SETTINGS payload: identifier and value pairs, six octets each. */
    static byte[] settings(int... idValue) {
        byte[] p = new byte[idValue.length / 2 * 6];
        for (int i = 0, at = 0; i < idValue.length; i += 2, at += 6) {
            p[at] = (byte) (idValue[i] >>> 8);
            p[at + 1] = (byte) idValue[i];
            System.arraycopy(int32(idValue[i + 1]), 0, p, at + 2, 4);
        }
        return p;
    }

    /** Four octets, big-endian: a window increment, an error code, a stream id. */
    static byte[] int32(int n) {
        return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
    }
}
