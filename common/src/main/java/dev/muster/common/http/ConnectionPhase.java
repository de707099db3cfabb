package dev.muster.common.http;

import java.net.Socket;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where one connection of an {@link Http1Server} is in its life, for the two things the server does to connections
 * from outside their own thread: the head deadline (a request head not complete in time closes the connection) and
 * room for a new connection when the limit is reached (the connection that has waited longest for a client's bytes is
 * closed).
 *
 * <pre>
 *   accepted ──► HEAD (TLS handshake, request line, headers; deadline counts from here)
 *                 │
 *                 ▼
 *               BODY ──► BUSY (handler) ──► IDLE (answer written, keep-alive) ──first byte──► HEAD …
 * </pre>
 *
 * HEAD, BODY and IDLE wait for the client: such a connection may be evicted. BUSY waits for the server (a bind at its
 * barrier): never evicted. CLOSING: the reaper or an eviction is closing it; it stays so (a write of another phase after
 * it, by a thread that has not seen the socket close yet, changes nothing). Written by the connection's thread (over
 * HTTP/2 also by the threads that finish its answers, under {@link Http2Answers}' lock); read by the accepting thread
 * and the reaper. Thread-safe: the phase and its start are one immutable value in an atomic reference.
 */
final class ConnectionPhase {
    enum Kind { HEAD, BODY, BUSY, IDLE, CLOSING }

    /** A phase and the {@link System#nanoTime()} it began. */
    record Now(Kind kind, long since) {
        boolean waitsForClient() {
            return kind == Kind.HEAD || kind == Kind.BODY || kind == Kind.IDLE;
        }
    }

    /** The socket as accepted (under TLS, the plain socket the TLS one is layered on): closing it ends every read at once. */
    final Socket raw;
    private final AtomicBoolean released = new AtomicBoolean();
    private final AtomicReference<Now> now;
    private volatile Thread thread;

    ConnectionPhase(Socket raw, long acceptedNanos) {
        this.raw = raw;
        this.now = new AtomicReference<>(new Now(Kind.HEAD, acceptedNanos));
    }

    Now now() {
        return now.get();
    }

    /** Bytes of a request arrived: an idle connection starts a head (and its deadline) now. */
    void bytesArrived() {
        Now n = now.get();
        if (n.kind() == Kind.IDLE) {
            now.compareAndSet(n, new Now(Kind.HEAD, System.nanoTime())); // a phase written meanwhile wins
        }
    }

    void body() {
        enter(Kind.BODY);
    }

    void busy() {
        enter(Kind.BUSY);
    }

    void idle() {
        enter(Kind.IDLE);
    }

    /** Being closed from outside (head deadline, eviction): neither again. */
    void closing() {
        now.set(new Now(Kind.CLOSING, System.nanoTime()));
    }

    boolean closedFromOutside() {
        return now.get().kind() == Kind.CLOSING;
    }

    private void enter(Kind kind) {
        Now next = new Now(kind, System.nanoTime());
        for (Now n = now.get(); n.kind() != Kind.CLOSING; n = now.get()) {
            if (now.compareAndSet(n, next)) {
                return;
            }
        }
    }

    void serving(Thread t) {
        thread = t;
    }

    Thread thread() {
        return thread;
    }

    /** True once, for whoever stops counting this connection as open first (its own thread, or an eviction). */
    boolean release() {
        return released.compareAndSet(false, true);
    }
}
