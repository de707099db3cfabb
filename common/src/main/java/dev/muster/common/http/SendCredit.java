package dev.muster.common.http;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * What this server may still send on one HTTP/2 connection (RFC 9113 §6.9): the client's flow-control window for the
 * connection and one {@link Window} for each stream being answered. The client's WINDOW_UPDATEs and
 * SETTINGS_INITIAL_WINDOW_SIZE open them; DATA written spends them; credit taken for DATA that is never sent goes back.
 *
 * <p>Threads: the connection's reading thread opens windows, marks streams reset and closes; answers take credit, on
 * threads of their own or on the reading thread. Every window is kept under one lock; an answer short of credit waits
 * on its condition — never holding the connection's write lock, and never on the reading thread (which alone reads the
 * WINDOW_UPDATE it would wait for: it only {@linkplain #tryCredit tries}). A wait ends with credit, with its stream
 * reset, or with the connection closed.
 */
final class SendCredit {
    /** One stream's send window (under the lock), and whether the client reset the stream. */
    static final class Window {
        private long available;
        private volatile boolean reset;

        /** True once the client reset the stream: nothing more is sent on it. */
        boolean reset() {
            return reset;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition opened = lock.newCondition();
    private long connection = Http2Frames.DEFAULT_WINDOW; // under lock
    private int initialWindow = Http2Frames.DEFAULT_WINDOW; // under lock
    private volatile boolean closed;

    /**
     * A new stream's window, the client's initial window size. Call it on the reading thread, which also reads the
     * SETTINGS that move every open window: none comes between this and the window's joining those passed to
     * {@link #initialWindow}.
     */
    Window open() {
        Window w = new Window();
        lock.lock();
        try {
            w.available = initialWindow;
        } finally {
            lock.unlock();
        }
        return w;
    }

    /**
     * SETTINGS_INITIAL_WINDOW_SIZE: the windows of new streams, and every {@code open} one moved by the difference; false
     * when that takes an open window beyond 2^31-1 (a flow-control error, RFC 9113 §6.9.2).
     */
    boolean initialWindow(int value, Stream<Window> open) {
        lock.lock();
        try {
            long delta = (long) value - initialWindow;
            initialWindow = value;
            boolean[] within = {true};
            open.forEach(w -> {
                w.available += delta;
                within[0] &= w.available <= Integer.MAX_VALUE;
            });
            opened.signalAll();
            return within[0];
        } finally {
            lock.unlock();
        }
    }

    /** A WINDOW_UPDATE for the connection; false when the window would exceed 2^31-1 (a flow-control error). */
    boolean openConnection(int increment) {
        lock.lock();
        try {
            connection += increment;
            opened.signalAll();
            return connection <= Integer.MAX_VALUE;
        } finally {
            lock.unlock();
        }
    }

    /** A WINDOW_UPDATE for a stream being answered. */
    void openStream(Window w, int increment) {
        lock.lock();
        try {
            w.available += increment;
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The client reset the stream: its answer waits no longer. */
    void reset(Window w) {
        w.reset = true;
        wakeAll();
    }

    /** The connection ended: no more credit, every wait gives up. */
    void close() {
        closed = true;
        wakeAll();
    }

    boolean closed() {
        return closed;
    }

    /** Takes credit for all {@code wanted} bytes if both windows have it now; never waits. */
    boolean tryCredit(Window w, int wanted) {
        if (wanted == 0) {
            return true;
        }
        lock.lock();
        try {
            if (connection < wanted || w.available < wanted) {
                return false;
            }
            connection -= wanted;
            w.available -= wanted;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Waits for credit on both the connection and the stream; takes up to {@code wanted}. 0: give up. */
    int credit(Window w, int wanted) throws InterruptedException {
        lock.lock();
        try {
            while (!w.reset && !closed && (connection <= 0 || w.available <= 0)) {
                opened.await();
            }
            if (w.reset || closed) {
                return 0;
            }
            int n = (int) Math.min(wanted, Math.min(connection, w.available));
            connection -= n;
            w.available -= n;
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Gives back connection credit taken for DATA that will not be sent (its stream was reset, or the connection ended). */
    void refund(int bytes) {
        if (bytes == 0) {
            return;
        }
        lock.lock();
        try {
            connection += bytes;
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void wakeAll() {
        lock.lock();
        try {
            opened.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
