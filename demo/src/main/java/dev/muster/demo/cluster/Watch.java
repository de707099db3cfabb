package dev.muster.demo.cluster;

import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * One watcher of the {@link EmbeddedCluster}: its own queue of events and its own daemon thread that hands
 * them to the {@link ClusterListener} one at a time, in order. Like an informer's delta FIFO the queue is not
 * bounded; what it holds is bounded by the changes the scenario makes while the listener is busy.
 *
 * <p>Thread-safe. The cluster offers events under its lock, so the queue's order is the order of the changes.
 * {@code delivered} (guarded by {@code this}) is the cluster's event number of the last event handed over, so
 * that callers can wait until a watcher has seen everything up to a point.
 */
public final class Watch implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Watch.class.getName());

    private record Entry(long sequence, ClusterEvent event) {}

    private static final Entry STOP = new Entry(Long.MAX_VALUE, null);

    private final String name;
    private final ClusterListener listener;
    private final Runnable onClose;
    private final LinkedBlockingQueue<Entry> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private long delivered = -1; // guarded by this
    private long failures; // guarded by this

    Watch(String name, ClusterListener listener, Runnable onClose) {
        this.name = name;
        this.listener = listener;
        this.onClose = onClose;
        this.thread = Thread.ofPlatform().daemon().name("cluster-watch-" + name).unstarted(this::run);
    }

    void start() {
        thread.start();
    }

    /** Called by the cluster with its lock held. */
    void offer(long sequence, ClusterEvent event) {
        queue.add(new Entry(sequence, event));
    }

    private void run() {
        while (true) {
            Entry e;
            try {
                e = queue.take();
            } catch (InterruptedException ex) {
                return;
            }
            if (e == STOP) {
                return;
            }
            try {
                listener.onEvent(e.event());
            } catch (RuntimeException ex) {
                synchronized (this) {
                    failures++;
                }
                LOG.log(System.Logger.Level.ERROR, "watch " + name + ": handler failed on " + e.event(), ex);
            }
            synchronized (this) {
                delivered = e.sequence();
                notifyAll();
            }
        }
    }

    public String name() {
        return name;
    }

    /** Events waiting to be delivered. */
    public int backlog() {
        return queue.size();
    }

    /** Handler calls that threw. */
    public synchronized long failures() {
        return failures;
    }

    /** Waits until every event up to the cluster's event number {@code sequence} was delivered; false on timeout. */
    public synchronized boolean awaitDelivered(long sequence, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (delivered < sequence) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /** Stops delivering: events still queued are dropped. */
    @Override
    public void close() {
        onClose.run();
        queue.clear();
        queue.add(STOP);
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
