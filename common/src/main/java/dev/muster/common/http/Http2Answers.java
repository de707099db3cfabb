package dev.muster.common.http;

import static dev.muster.common.http.Http2Frames.CONTINUATION;
import static dev.muster.common.http.Http2Frames.DATA;
import static dev.muster.common.http.Http2Frames.END_HEADERS;
import static dev.muster.common.http.Http2Frames.END_STREAM;
import static dev.muster.common.http.Http2Frames.HEADERS;
import static dev.muster.common.http.Http2Frames.MAX_FRAME;
import static dev.muster.common.http.Http2Frames.NO_ERROR;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The answering side of one HTTP/2 connection ({@link Http2Connection} reads): runs the handler for each complete
 * request and writes its answer — HEADERS, then DATA as the client's send windows allow, which {@link SendCredit}
 * keeps. The reading side hands it each request, what the client says about the send windows (SETTINGS_INITIAL_WINDOW_SIZE,
 * SETTINGS_MAX_FRAME_SIZE, WINDOW_UPDATE, RST_STREAM), and the connection's end.
 *
 * <p>Threads: a request is answered on a virtual thread of its own, so a bind parked at the barrier never holds up the
 * requests behind it — unless the handler says it answers at once ({@link Http1Handler#answersAtOnce}, a filter): then
 * the reading thread answers it itself, without a hand-off, and hands only the writing to a virtual thread when the
 * client's windows are too short for the whole answer (it never waits for the WINDOW_UPDATE that it alone reads). An
 * answer takes the frames' write lock for its HEADERS, CONTINUATIONs and first DATA, so its HEADERS precede its DATA and
 * frames never interleave mid-frame; it waits for send credit without holding the write lock. Who owns what:
 * <ul>
 *   <li>the streams being answered: a concurrent map, to which the reading thread adds a stream as it dispatches it and
 *       from which the thread that finishes its answer removes it; the reading thread looks streams up in it for the
 *       client's window updates and resets;</li>
 *   <li>the send windows: {@link SendCredit}, under its own lock;</li>
 *   <li>the number of requests being answered, and the connection's phase it drives (busy while any is): under
 *       {@code activeLock};</li>
 *   <li>the largest frame the client accepts: volatile, set by the reading thread, read by writers.</li>
 * </ul>
 */
final class Http2Answers {
    private final Http2Frames frames;
    private final ConnectionPhase phase;
    private final Http1Handler handler;
    private final long maxBodyBytes;
    private final SendCredit credit = new SendCredit();
    /** Streams whose answer is not yet fully written: the reading thread adds, the answering thread removes. */
    private final Map<Integer, Outgoing> answering = new ConcurrentHashMap<>();
    /** The largest frame the client accepts (its SETTINGS_MAX_FRAME_SIZE): set by the reading thread, read by writers. */
    private volatile int peerMaxFrame = MAX_FRAME;
    private final Object activeLock = new Object();
    private int active; // requests received and not yet answered, under activeLock (drives the connection's phase)

    Http2Answers(Http2Frames frames, ConnectionPhase phase, Http1Handler handler, long maxBodyBytes) {
        this.frames = frames;
        this.phase = phase;
        this.handler = handler;
        this.maxBodyBytes = maxBodyBytes;
    }

    /** Whether answers are still running (a bind at its barrier): a quiet client then is not an idle connection. */
    boolean running() {
        synchronized (activeLock) {
            return active > 0;
        }
    }

    /** Streams whose answer is not yet fully written: they count toward the streams open at once. */
    int streams() {
        return answering.size();
    }

    /**
     * A complete request (reading thread): counted active, and answered — on this reading thread when the handler says
     * it never waits for another request (its answer then goes out unless the client's windows are short, in which case
     * a virtual thread finishes writing it), else on a virtual thread of its own. {@code tooLarge}: its body exceeded
     * the limit and was dropped; it gets the handler's "too large" answer and its stream is reset after it.
     */
    void dispatch(int stream, Http1Request request, boolean tooLarge) {
        boolean atOnce = !tooLarge && handler.answersAtOnce(request);
        SendCredit.Window window = credit.open();
        Thread thread = atOnce ? Thread.currentThread() : answeringThread(() -> {
            try {
                answer(stream, request, tooLarge, window);
            } finally {
                done(stream);
            }
        });
        answering.put(stream, new Outgoing(thread, window));
        synchronized (activeLock) {
            if (active++ == 0) {
                phase.busy();
            }
        }
        if (atOnce) {
            answerHere(stream, request, window);
        } else {
            thread.start();
        }
    }

    /** RST_STREAM (reading thread): the stream's answer is dropped, if it is still being written; the handler finishes what it does. */
    void reset(int stream) {
        Outgoing o = answering.get(stream);
        if (o != null) {
            credit.reset(o.credit);
        }
    }

    /**
     * SETTINGS_INITIAL_WINDOW_SIZE (reading thread): every stream being answered has its credit moved by the difference;
     * false when that takes one beyond 2^31-1 (a flow-control error).
     */
    boolean initialWindow(int value) {
        return credit.initialWindow(value, answering.values().stream().map(Outgoing::credit));
    }

    /** SETTINGS_MAX_FRAME_SIZE (reading thread, the value already checked): the largest frame written from now on. */
    void maxFrame(int value) {
        peerMaxFrame = value;
    }

    /** A WINDOW_UPDATE for the connection (reading thread); false when its window would exceed 2^31-1 (a flow-control error). */
    boolean openConnection(int increment) {
        return credit.openConnection(increment);
    }

    /** A WINDOW_UPDATE for a stream (reading thread): ignored unless its answer is still being written. */
    void openStream(int stream, int increment) {
        Outgoing o = answering.get(stream);
        if (o != null) {
            credit.openStream(o.credit, increment);
        }
    }

    /**
     * The connection ended (reading thread): answers waiting for credit give up; with {@code wakeHandlers} (the server
     * closing) the handlers still running are interrupted too (a bind at its barrier). Answers already running finish.
     */
    void end(boolean wakeHandlers) {
        credit.close();
        if (wakeHandlers) {
            answering.values().forEach(o -> o.thread.interrupt());
        }
    }

    /** On the reading thread: handle, and write what credit allows now; a virtual thread writes the rest. */
    private void answerHere(int stream, Http1Request request, SendCredit.Window window) {
        Http1Response response = respond(request, false);
        if (response == null) {
            done(stream);
            return;
        }
        byte[] body = sentBody(request, response);
        if (credit.tryCredit(window, body.length)) {
            send(stream, window, response, body, body.length, false);
            done(stream);
        } else { // the client's windows are short: never wait for its WINDOW_UPDATE on the thread that reads it
            answeringThread(() -> {
                try {
                    send(stream, window, response, body, 0, false);
                } finally {
                    done(stream);
                }
            }).start();
        }
    }

    private void answer(int stream, Http1Request request, boolean tooLarge, SendCredit.Window window) {
        Http1Response response = respond(request, tooLarge);
        if (response != null) {
            send(stream, window, response, sentBody(request, response), 0, tooLarge);
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

    /** The handler's answer (its "too large" one for a body over the limit, a 500 for an exception); null: closing. */
    private Http1Response respond(Http1Request request, boolean tooLarge) {
        if (tooLarge) {
            return handler.bodyTooLarge(request, maxBodyBytes);
        }
        try {
            return handler.handle(request);
        } catch (InterruptedException e) {
            return null; // the server is closing
        } catch (Exception e) {
            return Http1Response.text(500, "internal error answering " + request.method() + " " + request.path() + ": " + e + "\n");
        }
    }

    /** The body that goes out: none for HEAD (its content-length is still the length of the handler's body). */
    private static byte[] sentBody(Http1Request request, Http1Response response) {
        return request.method().equals("HEAD") ? new byte[0] : response.body();
    }

    /**
     * Writes the answer, and with {@code resetAfter} resets the stream after it (a body over the limit: the client stops
     * sending it). A connection that ended meanwhile ends the answer too.
     */
    private void send(int stream, SendCredit.Window window, Http1Response response, byte[] body, int credited, boolean resetAfter) {
        try {
            write(stream, window, response, body, credited);
            if (resetAfter) {
                frames.rst(stream, NO_ERROR);
            }
        } catch (IOException | InterruptedException e) {
            // the connection ended; the client sees it gone
        }
    }

    /**
     * Writes the answer: HEADERS, then DATA as the client's windows allow. {@code credited}: bytes of the body whose
     * credit the caller already took (all of them, or 0).
     */
    private void write(int stream, SendCredit.Window window, Http1Response response, byte[] body, int credited)
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
        int n = credited > 0 ? Math.min(credited, peerMaxFrame) : body.length == 0 ? 0 : credit.credit(window, Math.min(body.length, peerMaxFrame));
        if (body.length > 0 && n == 0) {
            return; // reset, or the connection ended
        }
        int prepaid = credited - n; // credit taken for the frames after the first
        frames.writeLock.lock();
        try {
            if (window.reset() || credit.closed()) {
                credit.refund(credited > 0 ? credited : n); // credit taken for DATA never sent goes back to the connection
                return;
            }
            int max = peerMaxFrame;
            int first = Math.min(fields.length, max);
            frames.write(HEADERS, (body.length == 0 ? END_STREAM : 0) | (first == fields.length ? END_HEADERS : 0), stream, fields, 0, first, false);
            for (int at = first; at < fields.length; at += max) {
                int len = Math.min(max, fields.length - at);
                frames.write(CONTINUATION, at + len == fields.length ? END_HEADERS : 0, stream, fields, at, len, false);
            }
            if (n > 0) {
                frames.write(DATA, n == body.length ? END_STREAM : 0, stream, body, 0, n, false);
            }
            frames.flush(); // before any wait for credit below: the client gives credit only for what it has read
        } finally {
            frames.writeLock.unlock();
        }
        for (int at = n; at < body.length; at += n) {
            if (prepaid > 0) {
                n = Math.min(prepaid, peerMaxFrame);
                prepaid -= n;
            } else {
                n = credit.credit(window, Math.min(body.length - at, peerMaxFrame));
            }
            if (n == 0) {
                return;
            }
            frames.write(DATA, at + n == body.length ? END_STREAM : 0, stream, body, at, n, true);
        }
    }

    /** A thread of its own for writing an answer, not yet started. */
    private static Thread answeringThread(Runnable answer) {
        return Thread.ofVirtual().name("muster-h2-stream").unstarted(answer);
    }

    /** A request being answered: the thread answering it (interrupted when the server closes) and its send window. */
    private record Outgoing(Thread thread, SendCredit.Window credit) {}
}
