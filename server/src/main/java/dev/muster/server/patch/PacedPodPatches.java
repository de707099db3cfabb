package dev.muster.server.patch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Work per pod waiting to be sent, and the one thread that sends it, at most {@code perSecond} pods a second: a burst
 * of 1,000 pods costs 1,000/{@code perSecond} seconds of patches, never a burst of requests. Work is keyed by the pod's
 * UID: a pod offered again before it was sent is sent once, with the latest work ({@link Requeue} says where it then
 * waits), so what waits is bounded by the number of pods, not by how often they are offered. At most {@code maxPending}
 * pods wait; beyond that the oldest is dropped and handed back to the caller.
 *
 * <p><b>Threading.</b> {@link #offer} may be called from any thread. {@code pending} and {@code closed} are guarded by
 * {@code this}; nothing else is shared. One virtual thread (named by the caller) owns the sending: it takes the oldest
 * pod's work out of {@code pending} under the lock, then waits for its pace and calls {@code send} <em>without</em> the
 * lock, so offering never waits for the API server. There is one sender, so one pod's work is never sent twice at once
 * and sends never overlap. {@code send} must not throw: it reports its own outcome. {@link #close()} stops the sender
 * and hands back what was still waiting; work the sender took already is sent to its end.
 *
 * @param <T> one pod's work: what {@code send} needs to patch it
 */
public final class PacedPodPatches<T> {
    /** Where a pod offered again while it waits stands in line. */
    public enum Requeue {
        /** Where it first stood (in line order: a pod offered earlier is sent earlier). */
        KEEP_PLACE,
        /** At the back, like a new pod (the oldest work is the first to be dropped). */
        TO_THE_BACK
    }

    /**
     * What an {@link #offer} did.
     *
     * @param accepted false when closed: nothing was queued
     * @param replaced the same pod's work this one replaced (it is not sent), or null
     * @param dropped  the oldest pods' work dropped to stay within {@code maxPending} (not sent)
     */
    public record Offered<T>(boolean accepted, T replaced, List<T> dropped) {}

    private final long nanosBetween;
    private final int maxPending;
    private final Requeue requeue;
    private final Consumer<T> send;
    private final Thread sender;
    // ---- guarded by this ----
    private final LinkedHashMap<String, T> pending = new LinkedHashMap<>();
    private boolean closed;

    /**
     * @param threadName  the sender's name
     * @param perSecond   at most this many sends a second
     * @param maxPending  at most this many pods waiting
     * @param send        sends one pod's work, on the sender's thread, never concurrently with itself
     * @param startSender false: nothing is sent until {@link #sendPending()} (deterministic tests)
     */
    public PacedPodPatches(String threadName, int perSecond, int maxPending, Requeue requeue, Consumer<T> send, boolean startSender) {
        if (perSecond < 1 || maxPending < 1) {
            throw new IllegalArgumentException("perSecond and maxPending must be at least 1, got " + perSecond + " and " + maxPending);
        }
        this.nanosBetween = Duration.ofSeconds(1).toNanos() / perSecond;
        this.maxPending = maxPending;
        this.requeue = Objects.requireNonNull(requeue, "requeue");
        this.send = Objects.requireNonNull(send, "send");
        this.sender = startSender ? Thread.ofVirtual().name(threadName).start(this::run) : null;
    }

    /** Queues {@code work} for the pod {@code uid}, replacing what that pod had waiting. */
    public Offered<T> offer(String uid, T work) {
        Objects.requireNonNull(work, "work");
        synchronized (this) {
            if (closed) {
                return new Offered<>(false, null, List.of());
            }
            T replaced = requeue == Requeue.TO_THE_BACK ? pending.remove(uid) : null;
            T put = pending.put(uid, work);
            if (replaced == null) {
                replaced = put;
            }
            List<T> dropped = List.of();
            for (Iterator<T> it = pending.values().iterator(); pending.size() > maxPending && it.hasNext(); ) {
                if (dropped.isEmpty()) {
                    dropped = new ArrayList<>();
                }
                dropped.add(it.next());
                it.remove();
            }
            notifyAll();
            return new Offered<>(true, replaced, dropped);
        }
    }

    /** Pods waiting to be sent. */
    public synchronized int pending() {
        return pending.size();
    }

    /** Stops the sender; returns the work still waiting (never sent). Offers after this are not accepted. */
    public List<T> close() {
        List<T> left;
        synchronized (this) {
            closed = true;
            left = new ArrayList<>(pending.values());
            pending.clear();
            notifyAll();
        }
        if (sender != null) {
            sender.interrupt();
        }
        return left;
    }

    /** Sends everything waiting now, unpaced, on the caller's thread (tests started without a sender). */
    public void sendPending() {
        T w;
        while ((w = next()) != null) {
            send.accept(w);
        }
    }

    private synchronized T next() {
        if (pending.isEmpty()) {
            return null;
        }
        Iterator<T> it = pending.values().iterator();
        T w = it.next();
        it.remove();
        return w;
    }

    private void run() {
        long next = System.nanoTime();
        try {
            while (true) {
                T w;
                synchronized (this) {
                    while (pending.isEmpty() && !closed) {
                        wait();
                    }
                    if (closed) {
                        return;
                    }
                    w = next();
                }
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(Duration.ofNanos(wait));
                }
                next = Math.max(next, System.nanoTime()) + nanosBetween;
                send.accept(w);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // closed
        }
    }
}
