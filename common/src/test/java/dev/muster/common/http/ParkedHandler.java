package dev.muster.common.http;

import java.util.concurrent.CountDownLatch;

/**
 * A handler that parks every request, like a bind at its barrier, until the test releases them: {@link #parked} counts
 * the requests that arrived, {@link #interrupted} those woken by an interrupt instead (the server closing). Released,
 * each answers 200 with its path. Thread-safe.
 */
final class ParkedHandler implements Http1Handler {
    /** Counts down as each request parks: the test awaits it before it goes on. */
    final CountDownLatch parked;
    /** Counts down as each parked request is woken by an interrupt. */
    final CountDownLatch interrupted;
    private final CountDownLatch released = new CountDownLatch(1);

    /** For one request. */
    ParkedHandler() {
        this(1);
    }

    ParkedHandler(int requests) {
        this.parked = new CountDownLatch(requests);
        this.interrupted = new CountDownLatch(requests);
    }

    @Override
    public Http1Response handle(Http1Request request) throws InterruptedException {
        parked.countDown();
        try {
            released.await();
        } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
        }
        return Http1Response.text(200, request.path());
    }

    /** Lets every parked request answer, and every later one at once. */
    void release() {
        released.countDown();
    }
}
