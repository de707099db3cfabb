package dev.muster.common.http;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLSocket;

/**
 * Serves one HTTP/2 connection (RFC 9113) that a TLS client chose by ALPN: many requests at once on one connection, so
 * the binds a gang holds at its barrier share one TLS session instead of opening one connection — and one handshake —
 * each.
 *
 * <p>Threads: the connection's thread reads every frame and alone owns the request being assembled on each stream and
 * the header decoder. A request complete (its END_STREAM) is answered on a virtual thread of its own, so a bind parked at
 * the barrier never holds up the requests behind it — unless the handler says it answers at once
 * ({@link Http1Handler#answersAtOnce}, a filter): then the reading thread answers it itself, without a hand-off, and
 * hands only the writing to a virtual thread when the client's windows are too short for the whole answer. Writers — those virtual threads for answers, the reading thread for
 * SETTINGS and PING acknowledgements and window updates — take {@link #writeLock} for each group of frames, so frames
 * never interleave mid-frame and a response's HEADERS precede its DATA. Send credit (the client's flow-control windows)
 * is kept under {@link #flow}; an answer waits on {@link #windowOpened} for credit without holding the write lock.
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
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final int DATA = 0, HEADERS = 1, PRIORITY = 2, RST_STREAM = 3, SETTINGS = 4, PUSH_PROMISE = 5,
            PING = 6, GOAWAY = 7, WINDOW_UPDATE = 8, CONTINUATION = 9;
    private static final int END_STREAM = 0x1, ACK = 0x1, END_HEADERS = 0x4, PADDED = 0x8, PRIORITY_FLAG = 0x20;
    private static final int NO_ERROR = 0, PROTOCOL_ERROR = 1, FLOW_CONTROL_ERROR = 3,
            FRAME_SIZE_ERROR = 6, REFUSED_STREAM = 7, COMPRESSION_ERROR = 9;
    /** Frames this server reads: the protocol's default SETTINGS_MAX_FRAME_SIZE, which it never raises. */
    static final int MAX_FRAME = 16_384;
    private static final int DEFAULT_WINDOW = 65_535;
    /** The window each request's body may fill before the server reads it: a whole body within the limit, at most 16 MiB. */
    private final int streamWindow;
    /** The connection's receive window when the body limit is smaller: the most the connection holds of unfinished bodies. */
    private static final int CONNECTION_WINDOW = 16 << 20;
    private static final int MAX_HEADER_LIST = 64 * 1024;

    private final SSLSocket socket;
    private final ConnectionPhase phase;
    private final Http1Handler handler;
    private final long maxBodyBytes;
    private final int maxStreams;
    private final X509Certificate peer;
    private final java.util.function.BooleanSupplier serverClosing;
    private final InputStream in;
    private final OutputStream out;
    private final Hpack.Decoder headerDecoder = new Hpack.Decoder(4096, MAX_HEADER_LIST); // reading thread only

    /** Streams still receiving their request (reading thread only). */
    private final Map<Integer, Incoming> receiving = new HashMap<>();
    /** Streams whose answer is not yet fully written: the reading thread adds, the answering thread removes. */
    private final Map<Integer, Outgoing> answering = new ConcurrentHashMap<>();
    private int lastStreamId; // reading thread only
    /** The receive window announced for the connection: the larger of 16 MiB and a body over the limit. */
    private final int connectionWindow;
    /** What the client may still send on the connection: announced, less received (reading thread only). */
    private int receiveWindow;
    /** Bytes received that the connection no longer holds and has not yet given back (reading thread only). */
    private int unreturned;

    private final ReentrantLock writeLock = new ReentrantLock();
    private final ReentrantLock flow = new ReentrantLock();
    private final Condition windowOpened = flow.newCondition();
    private long connectionSendWindow = DEFAULT_WINDOW; // under flow
    private int peerInitialWindow = DEFAULT_WINDOW; // under flow
    private volatile int peerMaxFrame = MAX_FRAME;
    private volatile boolean ended;
    private final Object activeLock = new Object();
    private int active; // requests received and not yet answered, under activeLock (drives the connection's phase)

    /** @param serverClosing true once the server closes: the handlers still running are interrupted as the connection ends */
    Http2Connection(SSLSocket socket, ConnectionPhase phase, Http1Handler handler, long maxBodyBytes, int maxStreams,
                    X509Certificate peer, java.util.function.BooleanSupplier serverClosing) throws IOException {
        this.socket = socket;
        this.phase = phase;
        this.handler = handler;
        this.maxBodyBytes = maxBodyBytes;
        this.maxStreams = maxStreams;
        this.peer = peer;
        this.serverClosing = serverClosing;
        this.streamWindow = (int) Math.min(16 << 20, Math.max(DEFAULT_WINDOW, maxBodyBytes));
        this.connectionWindow = (int) Math.max(CONNECTION_WINDOW, Math.min(Integer.MAX_VALUE - 1L, maxBodyBytes) + 1);
        this.receiveWindow = connectionWindow;
        this.in = new BufferedInputStream(socket.getInputStream(), MAX_FRAME + 9);
        this.out = new BufferedOutputStream(socket.getOutputStream(), MAX_FRAME + 9);
    }

    /** Reads frames until the client closes, an error ends the connection, or it is idle past the socket's timeout. */
    void serve() throws IOException {
        byte[] preface = new byte[PREFACE.length];
        readFully(preface, preface.length);
        if (!Arrays.equals(preface, PREFACE)) {
            throw new IOException("not an HTTP/2 client preface after ALPN chose h2");
        }
        phase.idle(); // from here only requests in progress make it busy; the head deadline no longer applies
        writeSettings();
        try {
            readFrames();
        } catch (ConnectionError e) {
            goAway(e.code, e.getMessage());
        } catch (SocketTimeoutException idle) {
            goAway(NO_ERROR, "idle");
        } catch (EOFException gone) {
            // the client closed the connection
        } finally {
            ended = true;
            if (serverClosing.getAsBoolean() || Thread.currentThread().isInterrupted()) { // wake the handlers too (a bind at its barrier)
                answering.values().forEach(o -> o.thread.interrupt()); // set before each is put
            }
            flow.lock();
            try {
                windowOpened.signalAll(); // answers waiting for credit give up
            } finally {
                flow.unlock();
            }
        }
    }

    private void readFrames() throws IOException {
        byte[] head = new byte[9];
        byte[] payload = new byte[MAX_FRAME];
        while (true) {
            try {
                readFully(head, 9);
            } catch (SocketTimeoutException timeout) {
                synchronized (activeLock) {
                    if (active > 0) {
                        continue; // answers still running (a bind at its barrier): not idle
                    }
                }
                throw timeout;
            }
            int length = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
            int type = head[3] & 0xff;
            int flags = head[4] & 0xff;
            int stream = ((head[5] & 0x7f) << 24) | (head[6] & 0xff) << 16 | (head[7] & 0xff) << 8 | head[8] & 0xff;
            if (length > MAX_FRAME) {
                throw new ConnectionError(FRAME_SIZE_ERROR, "frame of " + length + " bytes exceeds SETTINGS_MAX_FRAME_SIZE " + MAX_FRAME);
            }
            readFully(payload, length);
            switch (type) {
                case DATA -> data(stream, flags, payload, length);
                case HEADERS -> headers(stream, flags, payload, length, head);
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
                    Outgoing o = answering.get(stream);
                    if (o != null) {
                        o.reset = true; // its answer is dropped; the handler finishes what it does
                        wakeWriters();
                    }
                }
                case SETTINGS -> settings(stream, flags, payload, length);
                case PUSH_PROMISE -> throw new ConnectionError(PROTOCOL_ERROR, "a client may not send PUSH_PROMISE");
                case PING -> {
                    if (length != 8 || stream != 0) {
                        throw new ConnectionError(length != 8 ? FRAME_SIZE_ERROR : PROTOCOL_ERROR, "malformed PING");
                    }
                    if ((flags & ACK) == 0) {
                        writeFrame(PING, ACK, 0, payload, 0, 8, true);
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

    private void headers(int stream, int flags, byte[] payload, int length, byte[] head) throws IOException {
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
            readFully(head, 9);
            int len = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | head[2] & 0xff;
            int id = ((head[5] & 0x7f) << 24) | (head[6] & 0xff) << 16 | (head[7] & 0xff) << 8 | head[8] & 0xff;
            if ((head[3] & 0xff) != CONTINUATION || id != stream) {
                throw new ConnectionError(PROTOCOL_ERROR, "expected CONTINUATION of stream " + stream);
            }
            if (len > MAX_FRAME || block.size() + len > MAX_HEADER_LIST) {
                throw new ConnectionError(len > MAX_FRAME ? FRAME_SIZE_ERROR : PROTOCOL_ERROR, "header block of stream " + stream + " too large");
            }
            readFully(payload, len);
            block.write(payload, 0, len);
            f = head[4] & 0xff;
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
            giveBack(open.body.size()); // the body is the handler's now
            dispatch(open);
            return;
        }
        if (stream <= lastStreamId || stream % 2 == 0) {
            throw new ConnectionError(PROTOCOL_ERROR, "HEADERS on stream " + stream + ", which a client may not open now");
        }
        lastStreamId = stream;
        if (receiving.size() + answering.size() >= maxStreams) {
            writeRst(stream, REFUSED_STREAM);
            return;
        }
        String method = fields.remove(":method");
        String path = fields.remove(":path");
        String authority = fields.remove(":authority");
        fields.remove(":scheme");
        if (method == null || path == null || fields.keySet().stream().anyMatch(n -> n.startsWith(":"))) {
            writeRst(stream, PROTOCOL_ERROR);
            return;
        }
        if (authority != null) {
            fields.putIfAbsent("host", authority);
        }
        int query = path.indexOf('?');
        Incoming request = new Incoming(stream, method, query < 0 ? path : path.substring(0, query), fields, streamWindow);
        String declared = fields.get("content-length");
        if (declared != null && declared.chars().allMatch(Character::isDigit) && declared.length() < 19
                && Long.parseLong(declared) > maxBodyBytes) {
            request.tooLarge = true;
        }
        if ((flags & END_STREAM) != 0) {
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
        if (!request.tooLarge && request.body.size() + size > maxBodyBytes) {
            request.tooLarge = true;
        }
        if (request.tooLarge) { // answered at once, then the stream is reset; what the client still sends is dropped
            receiving.remove(stream);
            giveBack(request.body.size() + length); // the body so far and this frame are dropped
            request.body = new ByteArrayOutputStream(0);
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
            writeWindowUpdate(stream, most - request.window);
            request.window = most;
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
                    flow.lock();
                    try {
                        int delta = (int) value - peerInitialWindow;
                        peerInitialWindow = (int) value;
                        for (Outgoing o : answering.values()) {
                            o.sendWindow += delta;
                        }
                        windowOpened.signalAll();
                    } finally {
                        flow.unlock();
                    }
                }
                case 0x5 -> { // MAX_FRAME_SIZE
                    if (value < MAX_FRAME || value > 16_777_215) {
                        throw new ConnectionError(PROTOCOL_ERROR, "SETTINGS_MAX_FRAME_SIZE " + value);
                    }
                    peerMaxFrame = (int) value;
                }
                default -> {
                    // HEADER_TABLE_SIZE: answers never index; MAX_CONCURRENT_STREAMS: no push; the rest: advisory
                }
            }
        }
        writeFrame(SETTINGS, ACK, 0, p, 0, 0, true);
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
            writeRst(stream, PROTOCOL_ERROR);
            return;
        }
        flow.lock();
        try {
            if (stream == 0) {
                connectionSendWindow += increment;
                if (connectionSendWindow > Integer.MAX_VALUE) {
                    throw new ConnectionError(FLOW_CONTROL_ERROR, "the connection's window exceeds 2^31-1");
                }
            } else {
                Outgoing o = answering.get(stream);
                if (o != null) {
                    o.sendWindow += increment;
                }
            }
            windowOpened.signalAll();
        } finally {
            flow.unlock();
        }
    }

    /**
     * The request is complete: counted active, and answered — on this reading thread when the handler says it never
     * waits for another request (its answer then goes out unless the client's windows are short, in which case a
     * virtual thread finishes writing it), else on a virtual thread of its own.
     */
    private void dispatch(Incoming request) {
        Outgoing answer = new Outgoing();
        Http1Request req = new Http1Request(request.method, request.path, request.headers,
                request.tooLarge ? new byte[0] : request.body.toByteArray(), peer);
        boolean atOnce = !request.tooLarge && handler.answersAtOnce(req);
        Runnable work = () -> {
            try {
                answer(request, req, answer);
            } finally {
                done(request.stream);
            }
        };
        answer.thread = atOnce ? Thread.currentThread() : Thread.ofVirtual().name("muster-h2-stream").unstarted(work);
        flow.lock();
        try { // under the lock that a change of SETTINGS_INITIAL_WINDOW_SIZE takes to move every answer's credit
            answer.sendWindow = peerInitialWindow;
            answering.put(request.stream, answer);
        } finally {
            flow.unlock();
        }
        synchronized (activeLock) {
            if (active++ == 0) {
                phase.busy();
            }
        }
        if (atOnce) {
            answerHere(request, req, answer);
        } else {
            answer.thread.start();
        }
    }

    /** On the reading thread: handle, and write what credit allows now; a virtual thread writes the rest. */
    private void answerHere(Incoming request, Http1Request req, Outgoing answer) {
        Http1Response response = respond(request, req);
        if (response == null) {
            done(request.stream);
            return;
        }
        byte[] body = request.method.equals("HEAD") ? new byte[0] : response.body();
        if (tryCredit(answer, body.length)) {
            try {
                write(request.stream, answer, response, body, body.length);
            } catch (IOException | InterruptedException e) {
                // the connection ended; the client sees it gone
            }
            done(request.stream);
        } else { // the client's windows are short: never wait for its WINDOW_UPDATE on the thread that reads it
            Thread.ofVirtual().name("muster-h2-stream").start(() -> {
                try {
                    write(request.stream, answer, response, body, 0);
                } catch (IOException | InterruptedException e) {
                    // the connection ended
                } finally {
                    done(request.stream);
                }
            });
        }
    }

    private void done(int stream) {
        answering.remove(stream);
        synchronized (activeLock) {
            if (--active == 0) {
                phase.idle();
            }
        }
    }

    private void answer(Incoming request, Http1Request req, Outgoing answer) {
        Http1Response response = respond(request, req);
        if (response == null) {
            return;
        }
        byte[] body = request.method.equals("HEAD") ? new byte[0] : response.body();
        try {
            write(request.stream, answer, response, body, 0);
            if (request.tooLarge) {
                writeRst(request.stream, NO_ERROR); // after the answer: the client stops sending the body
            }
        } catch (IOException | InterruptedException e) {
            // the connection ended; the client sees it gone
        }
    }

    /** The handler's answer (its "too large" one for a body over the limit, a 500 for an exception); null: closing. */
    private Http1Response respond(Incoming request, Http1Request req) {
        if (request.tooLarge) {
            return handler.bodyTooLarge(req, maxBodyBytes);
        }
        try {
            return handler.handle(req);
        } catch (InterruptedException e) {
            return null; // the server is closing
        } catch (Exception e) {
            return Http1Response.text(500, "internal error answering " + request.method + " " + request.path + ": " + e + "\n");
        }
    }

    /**
     * Writes the answer: HEADERS, then DATA as the client's windows allow. {@code credited}: bytes of the body whose
     * credit the caller already took (all of them, or 0).
     */
    private void write(int stream, Outgoing answer, Http1Response response, byte[] body, int credited)
            throws IOException, InterruptedException {
        ByteArrayOutputStream block = new ByteArrayOutputStream(64);
        Hpack.status(block, response.status());
        if (response.contentType() != null) {
            Hpack.literal(block, "content-type", response.contentType());
        }
        Hpack.literal(block, "content-length", Integer.toString(response.body().length));
        response.headers().forEach((name, value) -> Hpack.literal(block, name.toLowerCase(Locale.ROOT), value));
        byte[] fields = block.toByteArray();
        // credit for the first DATA frame before anything is written: a small answer then goes out as one write
        int n = credited > 0 ? Math.min(credited, peerMaxFrame) : body.length == 0 ? 0 : credit(answer, Math.min(body.length, peerMaxFrame));
        if (body.length > 0 && n == 0) {
            return; // reset, or the connection ended
        }
        int prepaid = credited - n; // credit taken for the frames after the first
        writeLock.lock();
        try {
            if (answer.reset || ended) {
                refund(credited > 0 ? credited : n); // credit taken for DATA never sent goes back to the connection
                return;
            }
            int max = peerMaxFrame;
            int first = Math.min(fields.length, max);
            writeFrame(HEADERS, (body.length == 0 ? END_STREAM : 0) | (first == fields.length ? END_HEADERS : 0), stream, fields, 0, first, false);
            for (int at = first; at < fields.length; at += max) {
                int len = Math.min(max, fields.length - at);
                writeFrame(CONTINUATION, at + len == fields.length ? END_HEADERS : 0, stream, fields, at, len, false);
            }
            if (n > 0) {
                writeFrame(DATA, n == body.length ? END_STREAM : 0, stream, body, 0, n, false);
            }
            out.flush(); // before any wait for credit below: the client gives credit only for what it has read
        } finally {
            writeLock.unlock();
        }
        for (int at = n; at < body.length; at += n) {
            if (prepaid > 0) {
                n = Math.min(prepaid, peerMaxFrame);
                prepaid -= n;
            } else {
                n = credit(answer, Math.min(body.length - at, peerMaxFrame));
            }
            if (n == 0) {
                return;
            }
            writeFrame(DATA, at + n == body.length ? END_STREAM : 0, stream, body, at, n, true);
        }
    }

    /** Gives back connection credit taken for an answer that will not be sent (its stream was reset). */
    private void refund(int bytes) {
        if (bytes == 0) {
            return;
        }
        flow.lock();
        try {
            connectionSendWindow += bytes;
            windowOpened.signalAll();
        } finally {
            flow.unlock();
        }
    }

    /** Takes credit for all {@code wanted} bytes if both windows have it now; never waits. */
    private boolean tryCredit(Outgoing answer, int wanted) {
        if (wanted == 0) {
            return true;
        }
        flow.lock();
        try {
            if (connectionSendWindow < wanted || answer.sendWindow < wanted) {
                return false;
            }
            connectionSendWindow -= wanted;
            answer.sendWindow -= wanted;
            return true;
        } finally {
            flow.unlock();
        }
    }

    /** Waits for send credit on both the connection and the stream; takes up to {@code wanted}. 0: give up. */
    private int credit(Outgoing answer, int wanted) throws InterruptedException {
        flow.lock();
        try {
            while (!answer.reset && !ended && (connectionSendWindow <= 0 || answer.sendWindow <= 0)) {
                windowOpened.await();
            }
            if (answer.reset || ended) {
                return 0;
            }
            int n = (int) Math.min(wanted, Math.min(connectionSendWindow, answer.sendWindow));
            connectionSendWindow -= n;
            answer.sendWindow -= n;
            return n;
        } finally {
            flow.unlock();
        }
    }

    private void wakeWriters() {
        flow.lock();
        try {
            windowOpened.signalAll();
        } finally {
            flow.unlock();
        }
    }

    private void writeSettings() throws IOException {
        byte[] p = new byte[18];
        setting(p, 0, 0x3, maxStreams); // MAX_CONCURRENT_STREAMS
        setting(p, 6, 0x4, streamWindow); // INITIAL_WINDOW_SIZE
        setting(p, 12, 0x6, MAX_HEADER_LIST); // MAX_HEADER_LIST_SIZE
        writeLock.lock();
        try {
            writeFrame(SETTINGS, 0, 0, p, 0, p.length, false);
            byte[] inc = increment(connectionWindow - DEFAULT_WINDOW);
            writeFrame(WINDOW_UPDATE, 0, 0, inc, 0, 4, true);
        } finally {
            writeLock.unlock();
        }
    }

    private static void setting(byte[] p, int at, int id, int value) {
        p[at] = (byte) (id >>> 8);
        p[at + 1] = (byte) id;
        p[at + 2] = (byte) (value >>> 24);
        p[at + 3] = (byte) (value >>> 16);
        p[at + 4] = (byte) (value >>> 8);
        p[at + 5] = (byte) value;
    }

    /**
     * Gives back connection credit for {@code bytes} of DATA the connection no longer holds (or never held). Sent once
     * the client has half the window or less left, all that is free at once: few WINDOW_UPDATEs while bodies are small,
     * and a client waiting for credit never waits for bytes that are free (called, with 0 too, after every DATA frame).
     */
    private void giveBack(int bytes) throws IOException {
        unreturned += bytes;
        if (unreturned > 0 && receiveWindow <= connectionWindow / 2) {
            writeWindowUpdate(0, unreturned);
            receiveWindow += unreturned;
            unreturned = 0;
        }
    }

    private void writeWindowUpdate(int stream, int increment) throws IOException {
        writeFrame(WINDOW_UPDATE, 0, stream, increment(increment), 0, 4, true);
    }

    private static byte[] increment(int n) {
        return new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n};
    }

    private void writeRst(int stream, int code) throws IOException {
        writeFrame(RST_STREAM, 0, stream, increment(code), 0, 4, true);
    }

    private void goAway(int code, String message) {
        byte[] debug = message.getBytes(StandardCharsets.UTF_8);
        byte[] p = new byte[8 + Math.min(debug.length, 1024)];
        System.arraycopy(increment(lastStreamId), 0, p, 0, 4);
        System.arraycopy(increment(code), 0, p, 4, 4);
        System.arraycopy(debug, 0, p, 8, p.length - 8);
        try {
            writeFrame(GOAWAY, 0, 0, p, 0, p.length, true);
        } catch (IOException ignored) {
            // the connection ends anyway
        }
    }

    /** One frame; takes the write lock (reentrant: answers call it holding the lock already). */
    private void writeFrame(int type, int flags, int stream, byte[] payload, int offset, int length, boolean flush) throws IOException {
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

    private static void requireStream(int stream, String frame) {
        if (stream == 0) {
            throw new ConnectionError(PROTOCOL_ERROR, frame + " on stream 0");
        }
    }

    private void readFully(byte[] b, int n) throws IOException {
        int at = 0;
        while (at < n) {
            int r = in.read(b, at, n - at);
            if (r < 0) {
                throw new EOFException("connection closed by the client");
            }
            at += r;
        }
    }

    /** A request being received (reading thread only). */
    private static final class Incoming {
        final int stream;
        final String method;
        final String path;
        final Map<String, String> headers;
        ByteArrayOutputStream body = new ByteArrayOutputStream(0);
        int window; // what the client may still send on this stream
        boolean tooLarge;

        Incoming(int stream, String method, String path, Map<String, String> headers, int window) {
            this.stream = stream;
            this.window = window;
            this.method = method;
            this.path = path;
            this.headers = headers;
        }
    }

    /** A request being answered: its send credit (under {@link #flow}) and whether the client reset it. */
    private static final class Outgoing {
        volatile Thread thread;
        long sendWindow;
        volatile boolean reset;
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
