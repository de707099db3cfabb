package dev.muster.controller.queues;

import dev.muster.core.status.QueueView;
import dev.muster.core.status.StatusChangeListener;
import dev.muster.core.status.StatusKey;
import dev.muster.proto.v1.QueueInfo;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executor;

/**
 * Feeds Watch subscribers. The fold tells the hub which queues changed; each subscriber keeps the
 * <em>names</em> of changed queues (a set: at most one entry per queue) and, when gRPC says the stream is
 * ready, sends the queue's state as it is at that moment. A slow subscriber therefore skips intermediate
 * states and never holds more than one pending entry per queue; nothing is buffered per change.
 *
 * <p>Thread-safe. {@code subscribers} is a copy-on-write set. Each {@link Subscriber}'s {@code lock} guards its
 * {@code pending} set and {@code draining} flag; sends happen on the executor, outside the fold's lock and
 * outside the subscriber's lock, by one drain at a time per subscriber (gRPC observers are not thread-safe).
 */
public final class QueueWatchHub implements StatusChangeListener {
    private final QueueViews views;
    private final Executor executor;
    private final Set<Subscriber> subscribers = new CopyOnWriteArraySet<>();

    public QueueWatchHub(QueueViews views, Executor executor) {
        this.views = views;
        this.executor = executor;
    }

    @Override
    public void changed(StatusKey key) {
        if (key instanceof StatusKey.Queue q) {
            for (Subscriber s : subscribers) {
                s.offer(q.name());
            }
        }
    }

    @Override
    public void removed(StatusKey key) {
        changed(key);
    }

    /** Subscribes {@code observer} to all queues ({@code name} "") or one; sends the current state first. */
    void subscribe(String name, ServerCallStreamObserver<QueueInfo> observer) {
        Subscriber s = new Subscriber(name, observer);
        observer.setOnCancelHandler(() -> subscribers.remove(s));
        observer.setOnReadyHandler(s::schedule);
        subscribers.add(s); // before reading the current state, so no change in between is missed
        if (name.isEmpty()) {
            for (QueueView v : views.queues()) {
                s.offer(v.name());
            }
        } else if (views.queue(name) != null) {
            s.offer(name);
        }
    }

    /** Subscribers currently watching. */
    public int subscribers() {
        return subscribers.size();
    }

    private final class Subscriber {
        private final String filter;
        private final ServerCallStreamObserver<QueueInfo> observer;
        private final Object lock = new Object();
        private final LinkedHashSet<String> pending = new LinkedHashSet<>(); // guarded by lock
        private boolean draining; // guarded by lock

        Subscriber(String filter, ServerCallStreamObserver<QueueInfo> observer) {
            this.filter = filter;
            this.observer = observer;
        }

        void offer(String name) {
            if (!filter.isEmpty() && !filter.equals(name)) {
                return;
            }
            synchronized (lock) {
                pending.add(name);
            }
            schedule();
        }

        void schedule() {
            synchronized (lock) {
                if (draining || pending.isEmpty()) {
                    return;
                }
                draining = true;
            }
            executor.execute(this::drain);
        }

        private void drain() {
            while (true) {
                String name;
                synchronized (lock) {
                    if (pending.isEmpty() || observer.isCancelled() || !observer.isReady()) {
                        draining = false; // the on-ready handler (or the next offer) schedules again
                        break;
                    }
                    Iterator<String> it = pending.iterator();
                    name = it.next();
                    it.remove();
                }
                QueueView v = views.queue(name);
                try {
                    observer.onNext(v == null ? QueueMessages.deleted(name) : QueueMessages.queue(v));
                } catch (RuntimeException e) { // cancelled under our feet
                    subscribers.remove(this);
                    synchronized (lock) {
                        draining = false;
                    }
                    return;
                }
            }
            // a subscriber that became ready between our check and clearing the flag is rescheduled here
            if (observer.isReady()) {
                schedule();
            }
        }
    }
}
