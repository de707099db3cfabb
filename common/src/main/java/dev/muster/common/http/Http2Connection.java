package dev.muster.common.http;

import static dev.muster.common.http.Http2Frames.ACK;
import static dev.muster.common.http.Http2Frames.COMPRESSION_ERROR;
import static dev.muster.common.http.Http2Frames.CONTINUATION;
import static dev.muster.common.http.Http2Frames.DATA;
import static dev.muster.common.http.Http2Frames.DEFAULT_WINDOW;
import static dev.muster.common.http.Http2Frames.END_HEADERS;
import static dev.muster.common.http.Http2Frames.END_STREAM;
import static dev.muster.common.http.Http2Frames.FLOW_CONTROL_ERROR;
import static dev.muster.common.http.Http2Frames.FRAME_SIZE_ERROR;
import static dev.muster.common.http.Http2Frames.GOAWAY;
import static dev.muster.common.http.Http2Frames.HEADERS;
import static dev.muster.common.http.Http2Frames.MAX_FRAME;
import static dev.muster.common.http.Http2Frames.NO_ERROR;
import static dev.muster.common.http.Http2Frames.PADDED;
import static dev.muster.common.http.Http2Frames.PING;
import static dev.muster.common.http.Http2Frames.PRIORITY;
import static dev.muster.common.http.Http2Frames.PRIORITY_FLAG;
import static dev.muster.common.http.Http2Frames.PROTOCOL_ERROR;
import static dev.muster.common.http.Http2Frames.PUSH_PROMISE;
import static dev.muster.common.http.Http2Frames.REFUSED_STREAM;
import static dev.muster.common.http.Http2Frames.RST_STREAM;
import static dev.muster.common.http.Http2Frames.SETTINGS;
import static dev.muster.common.http.Http2Frames.WINDOW_UPDATE;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import javax.net.ssl.SSLSocket;

/**
 * Serves one HTTP/2 connection (RFC 9113) that a TLS client chose by ALPN: many requests at once on one connection, so
 * the binds a gang holds at its barrier share one TLS session instead of opening one connection — and one handshake —
 * each. This is its reading side: the frames the client sends, the streams, the requests being assembled and their
 * dispatch, and the receive windows. {@link Http2Frames} reads and writes the frames; {@link Http2Answers} answers the
 * complete requests under the client's send windows, which it alone keeps ({@link SendCredit}): the client's SETTINGS,
 * WINDOW_UPDATEs and RST_STREAMs that concern them are handed to it.
 *
 * <p>Threads: the connection's thread reads every frame and alone owns the request being assembled on each stream, the
 * header decoder, the receive windows and the last stream opened. A request complete (its END_STREAM) goes to
 * {@link Http2Answers}, which answers it on a virtual thread of its own, or on this reading thread when the handler
 * answers it at once ({@link Http1Handler#answersAtOnce}); the next frame is read once the answer is handed off or
 * written. Writers — the answers' threads, this reading thread for SETTINGS and PING acknowledgements, window updates
 * and resets — take the frames' write lock for each group of frames, so frames never interleave mid-frame.
 *
 * <p>What it serves: requests with {@code :method}, {@code :path} and their headers and body, as {@link Http1Request}s to
 * the same {@link Http1Handler} as HTTP/1.1. Bodies over {@code maxBodyBytes} get the handler's "too large" answer and
 * the stream is reset. At most {@code maxStreams} requests at once (the SETTINGS it announces); more are refused with
 * REFUSED_STREAM, which clients retry. No server push, no priorities (read and ignored). A protocol error ends the
 * connection with GOAWAY naming it; answers already running still finish.
 *
 * <p>Bounded buffering: the bodies of requests not yet complete are held here, so the connection's receive window is
 * given back to the client only for bytes that leave it — a request handed to its handler, a stream the client reset, a
 * body over the limit dropped — and at once for bytes never held (padding, DATA of streams already answered or reset, of
 * a body over the limit). The bodies held across all streams never exceed the connection's window, whatever the number
 * of streams; a client whose unfinished bodies fill it waits until one of them ends. The window is at least one body
 * over the limit, so a request alone always completes or is refused. A stream's own window is refilled as its body
 * arrives, but never beyond what the request may still hold (one byte more, so that a body over the limit shows).
 */
final class Http2Connection {
    static final String ALPN = "h2";
    /** The connection's receive window when the body limit is smaller: the most the connection holds of unfinished bodies. */
    private static final int CONNECTION_WINDOW = 16 << 20;
    private static final int MAX_HEADER_LIST = 64 * 1024;

    private final ConnectionPhase phase;
    private final long maxBodyBytes;
    private final int maxStreams;
    private final X509Certificate peer;
    private final BooleanSupplier serverClosing;
    private final Http2Frames frames;
    private final Http2Answers answers;
    private final HpackDecoder headerDecoder = new HpackDecoder(4096, MAX_HEADER_LIST); // reading thread only

    /** Streams still receiving their request (reading thread only). */
    private final Map<Integer, Incoming> receiving = new HashMap<>();
    private int lastStreamId; // reading thread only
    /** The window each request's body may fill before the server reads it: a whole body within the limit, at most 16 MiB. */
    private final int streamWindow;
    /** The receive window announced for the connection: the larger of 16 MiB and a body over the limit. */
    private final int connectionWindow;
    /** What the client may still send on the connection: announced, less received (reading thread only). */
    private int receiveWindow;
    /** Bytes received that the connection no longer holds and has not yet given back (reading thread only). */
    private int unreturned;

    /**
     * @param serverClosing     true once the server closes: the handlers still running are interrupted as the connection ends
     * @param timeoutsWaitedOut counts the read timeouts waited out while answers ran ({@link Http2Frames})
     */
    Http2Connection(SSLSocket socket, ConnectionPhase phase, Http1Handler handler, long maxBodyBytes, int maxStreams,
                    X509Certificate peer, BooleanSupplier serverClosing, LongAdder timeoutsWaitedOut) throws IOException {
        this.phase = phase;
        this.maxBodyBytes = maxBodyBytes;
        this.maxStreams = maxStreams;
        this.peer = peer;
        this.serverClosing = serverClosing;
        this.streamWindow = (int) Math.min(16 << 20, Math.max(DEFAULT_WINDOW, maxBodyBytes));
        this.connectionWindow = (int) Math.max(CONNECTION_WINDOW, Math.min(Integer.MAX_VALUE - 1L, maxBodyBytes) + 1);
        this.receiveWindow = connectionWindow;
        this.frames = new Http2Frames(socket.getInputStream(), socket.getOutputStream(), timeoutsWaitedOut);
        this.answers = new Http2Answers(frames, phase, handler, maxBodyBytes);
    }

    /** Reads frames until the client closes, an error ends the connection, or it is idle past the socket's timeout. */
    void serve() throws IOException {
        frames.readPreface();
        phase.idle(); // from here only requests in progress make it busy; the head deadline no longer applies
        writeSettings();
        try {
            readFrames();
        } catch (ConnectionError e) {
            frames.goAway(lastStreamId, e.code, e.getMessage());
        } catch (SocketTimeoutException idle) {
            frames.goAway(lastStreamId, NO_ERROR, "idle");
        } catch (EOFException gone) {
            // the client closed the connection
        } finally {
            answers.end(serverClosing.getAsBoolean() || Thread.currentThread().isInterrupted());
        }
    }

    private void readFrames() throws IOException {
        byte[] payload = new byte[MAX_FRAME];
        while (true) {
            Http2Frames.Head head = frames.readHead(answers::running);
            int length = head.length();
            int flags = head.flags();
            int stream = head.stream();
            if (length > MAX_FRAME) {
                throw new ConnectionError(FRAME_SIZE_ERROR, "frame of " + length + " bytes exceeds SETTINGS_MAX_FRAME_SIZE " + MAX_FRAME);
            }
            frames.readFully(payload, length, answers::running);
            switch (head.type()) {
                case DATA -> data(stream, flags, payload, length);
                case HEADERS -> headers(stream, flags, payload, length);
                case PRIORITY -> {
                    if (length != 5) {
                        throw new ConnectionError(FRAME_SIZE_ERROR, "PRIORITY frame of " + length + " bytes");
                    }
                }
                case RST_STREAM -> {
                    requireStream(stream, "RST_STREAM");
                    Incoming dropped = receiving.remove(stream);
                    if (dropped != null) {
                        giveBack(dropped.body.size()); // its body so far is dropped
                    }
                    answers.reset(stream);
                }
                case SETTINGS -> settings(stream, flags, payload, length);
                case PUSH_PROMISE -> throw new ConnectionError(PROTOCOL_ERROR, "a client may not send PUSH_PROMISE");
                case PING -> {
                    if (length != 8 || stream != 0) {
                        throw new ConnectionError(length != 8 ? FRAME_SIZE_ERROR : PROTOCOL_ERROR, "malformed PING");
                    }
                    if ((flags & ACK) == 0) {
                        frames.write(PING, ACK, 0, payload, 0, 8, true);
                    }
                }
                case GOAWAY -> {
                    // the client opens no more streams; those running are answered, then it closes
                }
                case WINDOW_UPDATE -> windowUpdate(stream, payload, length);
                case CONTINUATION -> throw new ConnectionError(PROTOCOL_ERROR, "CONTINUATION without HEADERS before it");
                default -> {
                    // unknown frame types are ignored (RFC 9113 §4.1)
                }
            }
        }
    }

    private void headers(int stream, int flags, byte[] payload, int length) throws IOException {
        requireStream(stream, "HEADERS");
        int from = 0;
        int to = length;
        if ((flags & PADDED) != 0) {
            if (length < 1) {
                throw new ConnectionError(PROTOCOL_ERROR, "PADDED HEADERS without a pad length");
            }
            to -= payload[0] & 0xff;
            from = 1;
        }
        if ((flags & PRIORITY_FLAG) != 0) {
            from += 5;
        }
        if (to < from) {
            throw new ConnectionError(PROTOCOL_ERROR, "HEADERS padding longer than the frame");
        }
        ByteArrayOutputStream block = new ByteArrayOutputStream(to - from);
        block.write(payload, from, to - from);
        int f = flags;
        while ((f & END_HEADERS) == 0) { // CONTINUATION frames of the same stream follow, nothing between
            Http2Frames.Head next = frames.readHead(answers::running);
            int len = next.length();
            if (next.type() != CONTINUATION || next.stream() != stream) {
                throw new ConnectionError(PROTOCOL_ERROR, "expected CONTINUATION of stream " + stream);
            }
            if (len > MAX_FRAME || block.size() + len > MAX_HEADER_LIST) {
                throw new ConnectionError(len > MAX_FRAME ? FRAME_SIZE_ERROR : PROTOCOL_ERROR, "header block of stream " + stream + " too large");
            }
            frames.readFully(payload, len, answers::running);
            block.write(payload, 0, len);
            f = next.flags();
        }
        Map<String, String> fields = new HashMap<>(16);
        byte[] bytes = block.toByteArray();
        try {
            headerDecoder.decode(bytes, 0, bytes.length, (name, value) -> fields.merge(name.toLowerCase(Locale.ROOT), value, (a, b) -> a + ", " + b));
        } catch (HpackException e) {
            throw new ConnectionError(COMPRESSION_ERROR, e.getMessage());
        }
        Incoming open = receiving.get(stream);
        if (open != null) { // trailers: the request ends here
            if ((flags & END_STREAM) == 0) {
                throw new ConnectionError(PROTOCOL_ERROR, "trailers of stream " + stream + " without END_STREAM");
            }
            receiving.remove(stream);
            if (open.body.declared() >= 0 && open.body.size() != open.body.declared()) {
                malformed(open, 0);
                return;
            }
            giveBack(open.body.size()); // the body is the handler's now
            dispatch(open);
            return;
        }
        if (stream <= lastStreamId || stream % 2 == 0) {
            throw new ConnectionError(PROTOCOL_ERROR, "HEADERS on stream " + stream + ", which a client may not open now");
        }
        lastStreamId = stream;
        if (receiving.size() + answers.streams() >= maxStreams) {
            frames.rst(stream, REFUSED_STREAM);
            return;
        }
        String method = fields.remove(":method");
        String path = fields.remove(":path");
        String authority = fields.remove(":authority");
        fields.remove(":scheme");
        if (method == null || path == null || fields.keySet().stream().anyMatch(n -> n.startsWith(":"))) {
            frames.rst(stream, PROTOCOL_ERROR);
            return;
        }
        if (authority != null) {
            fields.putIfAbsent("host", authority);
        }
        int query = path.indexOf('?');
        String declared = fields.get("content-length");
        long declaredLength = declared != null && !declared.isEmpty() && declared.chars().allMatch(Character::isDigit) && declared.length() < 19
                ? Long.parseLong(declared) : -1;
        Incoming request = new Incoming(stream, method, query < 0 ? path : path.substring(0, query), fields, streamWindow,
                new Http2RequestBody(declaredLength));
        if (declaredLength > maxBodyBytes) { // answered now, whether or not the body follows: what follows is dropped
            request.tooLarge = true;
            dispatch(request);
        } else if ((flags & END_STREAM) != 0) {
            if (declaredLength > 0) {
                malformed(request, 0);
                return;
            }
            dispatch(request);
        } else {
            receiving.put(stream, request);
        }
    }

    private void data(int stream, int flags, byte[] payload, int length) throws IOException {
        requireStream(stream, "DATA");
        if (length > receiveWindow) {
            throw new ConnectionError(FLOW_CONTROL_ERROR, "DATA of " + length + " bytes beyond the connection's window of " + receiveWindow);
        }
        receiveWindow -= length;
        Incoming request = receiving.get(stream);
        if (request == null) {
            if (stream > lastStreamId) {
                throw new ConnectionError(PROTOCOL_ERROR, "DATA on stream " + stream + ", which is not open");
            }
            giveBack(length); // a stream already answered or reset: its data is dropped
            return;
        }
        int from = 0;
        int to = length;
        if ((flags & PADDED) != 0) {
            if (length < 1 || (payload[0] & 0xff) >= length) {
                throw new ConnectionError(PROTOCOL_ERROR, "DATA padding longer than the frame");
            }
            to -= payload[0] & 0xff;
            from = 1;
        }
        if (length > request.window) {
            throw new ConnectionError(FLOW_CONTROL_ERROR, "stream " + stream + " sent more than its window");
        }
        request.window -= length;
        int size = to - from;
        long declared = request.body.declared();
        if (declared >= 0 && (request.body.size() + size > declared || (flags & END_STREAM) != 0 && request.body.size() + size != declared)) {
            receiving.remove(stream);
            malformed(request, length);
            return;
        }
        if (!request.tooLarge && request.body.size() + size > maxBodyBytes) {
            request.tooLarge = true;
        }
        if (request.tooLarge) { // answered at once, then the stream is reset; what the client still sends is dropped
            receiving.remove(stream);
            giveBack(request.body.size() + length); // the body so far and this frame are dropped
            request.body.drop();
            dispatch(request);
            return;
        }
        request.body.write(payload, from, size);
        if ((flags & END_STREAM) != 0) {
            receiving.remove(stream);
            giveBack(length - size + request.body.size()); // the padding, and the body: the handler's now
            dispatch(request);
            return;
        }
        giveBack(length - size); // padding is never held
        int most = (int) Math.min(streamWindow - 1L, maxBodyBytes - request.body.size()) + 1;
        if (request.window <= most / 2) { // a long body: let it go on, as far as the request may hold
            frames.windowUpdate(stream, most - request.window);
            request.window = most;
        }
    }

    /**
     * A request whose DATA does not add up to its Content-Length (RFC 9113 §8.1.1): malformed, a stream error. It is
     * not handed to the handler; its stream is reset with PROTOCOL_ERROR, and what it held, with {@code alsoDropped}
     * bytes of the frame at hand, is given back. The caller has taken it out of {@code receiving}.
     */
    private void malformed(Incoming request, int alsoDropped) throws IOException {
        giveBack(request.body.size() + alsoDropped);
        request.body.drop();
        frames.rst(request.stream, PROTOCOL_ERROR);
    }

    /**
     * Gives back connection credit for {@code bytes} of DATA the connection no longer holds (or never held). Sent once
     * the client has half the window or less left, all that is free at once: few WINDOW_UPDATEs while bodies are small,
     * and a client waiting for credit never waits for bytes that are free (called, with 0 too, after every DATA frame).
     */
    private void giveBack(int bytes) throws IOException {
        unreturned += bytes;
        if (unreturned > 0 && receiveWindow <= connectionWindow / 2) {
            frames.windowUpdate(0, unreturned);
            receiveWindow += unreturned;
            unreturned = 0;
        }
    }

    private void settings(int stream, int flags, byte[] p, int length) throws IOException {
        if (stream != 0) {
            throw new ConnectionError(PROTOCOL_ERROR, "SETTINGS on stream " + stream);
        }
        if ((flags & ACK) != 0) {
            return;
        }
        if (length % 6 != 0) {
            throw new ConnectionError(FRAME_SIZE_ERROR, "SETTINGS of " + length + " bytes");
        }
        for (int i = 0; i < length; i += 6) {
            int id = (p[i] & 0xff) << 8 | p[i + 1] & 0xff;
            long value = (p[i + 2] & 0xffL) << 24 | (p[i + 3] & 0xff) << 16 | (p[i + 4] & 0xff) << 8 | p[i + 5] & 0xff;
            switch (id) {
                case 0x2 -> { // ENABLE_PUSH
                    if (value > 1) {
                        throw new ConnectionError(PROTOCOL_ERROR, "SETTINGS_ENABLE_PUSH " + value);
                    }
                }
                case 0x4 -> { // INITIAL_WINDOW_SIZE: every open stream's credit moves by the difference
                    if (value > Integer.MAX_VALUE) {
                        throw new ConnectionError(FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE " + value);
                    }
                    if (!answers.initialWindow((int) value)) {
                        throw new ConnectionError(FLOW_CONTROL_ERROR, "SETTINGS_INITIAL_WINDOW_SIZE " + value
                                + " takes a stream's window beyond 2^31-1");
                    }
                }
                case 0x5 -> { // MAX_FRAME_SIZE
                    if (value < MAX_FRAME || value > 16_777_215) {
                        throw new ConnectionError(PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE " + value);
                    }
                    answers.maxFrame((int) value);
                }
                default -> {
                    // HEADER_TABLE_SIZE: answers never index; MAX_CONCURRENT_STREAMS: no push; the rest: advisory
                }
            }
        }
        frames.write(SETTINGS, ACK, 0, p, 0, 0, true);
    }

    private void windowUpdate(int stream, byte[] p, int length) throws IOException {
        if (length != 4) {
            throw new ConnectionError(FRAME_SIZE_ERROR, "WINDOW_UPDATE of " + length + " bytes");
        }
        int increment = (p[0] & 0x7f) << 24 | (p[1] & 0xff) << 16 | (p[2] & 0xff) << 8 | p[3] & 0xff;
        if (increment == 0) {
            if (stream == 0) {
                throw new ConnectionError(PROTOCOL_ERROR, "WINDOW_UPDATE of 0 for the connection");
            }
            frames.rst(stream, PROTOCOL_ERROR);
            return;
        }
        if (stream == 0) {
            if (!answers.openConnection(increment)) {
                throw new ConnectionError(FLOW_CONTROL_ERROR, "the connection's window exceeds 2^31-1");
            }
        } else {
            answers.openStream(stream, increment);
        }
    }

    /** The request is complete: the answering side has it, and its body is the handler's now. */
    private void dispatch(Incoming request) {
        answers.dispatch(request.stream, new Http1Request(request.method, request.path, request.headers,
                request.tooLarge ? new byte[0] : request.body.bytes(), peer), request.tooLarge);
    }

    /** Our SETTINGS, and the connection's receive window raised from the protocol's default. */
    private void writeSettings() throws IOException {
        byte[] p = Http2Frames.settings(
                Http2Frames.SETTINGS_MAX_CONCURRENT_STREAMS, maxStreams,
                Http2Frames.SETTINGS_INITIAL_WINDOW_SIZE, streamWindow,
                Http2Frames.SETTINGS_MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST);
        frames.writeLock.lock();
        try {
            frames.write(SETTINGS, 0, 0, p, 0, p.length, false);
            frames.write(WINDOW_UPDATE, 0, 0, Http2Frames.int32(connectionWindow - DEFAULT_WINDOW), 0, 4, true);
        } finally {
            frames.writeLock.unlock();
        }
    }

    private static void requireStream(int stream, String frame) {
        if (stream == 0) {
            throw new ConnectionError(PROTOCOL_ERROR, frame + " on stream 0");
        }
    }

    /** A request being received (reading thread only). */
    private static final class Incoming {
        final int stream;
        final String method;
        final String path;
        final Map<String, String> headers;
        final Http2RequestBody body;
        int window; // what the client may still send on this stream
        boolean tooLarge;

        Incoming(int stream, String method, String path, Map<String, String> headers, int window, Http2RequestBody body) {
            this.stream = stream;
            this.method = method;
            this.path = path;
            this.headers = headers;
            this.window = window;
            this.body = body;
        }
    }

    /** Ends the connection with GOAWAY and this code. */
    private static final class ConnectionError extends RuntimeException {
        final int code;

        ConnectionError(int code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }
}
