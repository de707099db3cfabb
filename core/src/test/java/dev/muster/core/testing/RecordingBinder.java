package dev.muster.core.testing;

import dev.muster.core.model.PodId;
import dev.muster.core.gang.Binder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

/**
 * A fake {@link Binder} that records every binding under its lock. By default it succeeds at once;
 * pods named in {@link #failFor} fail; with {@link #holdAll()} calls stay pending until released.
 * Thread-safe: {@code this} guards all fields.
 */
public final class RecordingBinder implements Binder {
    private final Map<String, String> bound = new LinkedHashMap<>(); // uid → node
    private final Set<String> failing = new HashSet<>();
    private final Set<String> throwing = new HashSet<>();
    private final List<Held> held = new ArrayList<>();
    private boolean hold;
    private int calls;

    @Override
    public CompletionStage<Void> bind(PodId pod, String node) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Runnable finish;
        synchronized (this) {
            calls++;
            if (throwing.contains(pod.uid())) {
                throw new IllegalStateException("binder threw for " + pod + ": injected");
            }
            if (failing.contains(pod.uid())) {
                finish = () -> f.completeExceptionally(new IllegalStateException("binding " + pod + " failed: injected"));
            } else {
                finish = () -> {
                    synchronized (this) {
                        String previous = bound.putIfAbsent(pod.uid(), node);
                        if (previous != null) {
                            throw new AssertionError("pod " + pod + " bound twice");
                        }
                    }
                    f.complete(null);
                };
            }
            if (hold) {
                held.add(new Held(pod.uid(), node, finish));
                return f;
            }
        }
        finish.run();
        return f;
    }

    public synchronized void failFor(String uid) {
        failing.add(uid);
    }

    /** The bind of {@code uid} throws at once instead of answering (a broken Binder). */
    public synchronized void throwFor(String uid) {
        throwing.add(uid);
    }

    public synchronized void holdAll() {
        hold = true;
    }

    /** A call held by {@link #holdAll()}: its pod, its node, and what completes it. */
    private record Held(String uid, String node, Runnable finish) {}

    /** Completes the calls held so far (outside the lock) and keeps holding new ones. */
    public void completeHeld() {
        finish(take(h -> true, true));
    }

    /** Completes the held calls for the pod {@code uid} only (outside the lock); the others stay held. */
    public void completeHeld(String uid) {
        finish(take(h -> h.uid().equals(uid), true));
    }

    /** The node of the held call for the pod {@code uid}, or null. */
    public synchronized String heldNode(String uid) {
        for (Held h : held) {
            if (h.uid().equals(uid)) {
                return h.node();
            }
        }
        return null;
    }

    /** Completes every held call (outside the lock) and holds no more. */
    public void releaseHeld() {
        finish(take(h -> true, false));
    }

    /** Removes the held calls {@code which} selects; {@code keepHolding} false ends holding. */
    private synchronized List<Held> take(Predicate<Held> which, boolean keepHolding) {
        hold &= keepHolding;
        List<Held> out = new ArrayList<>();
        held.removeIf(h -> which.test(h) && out.add(h));
        return out;
    }

    private static void finish(List<Held> calls) {
        calls.forEach(h -> h.finish().run());
    }

    public synchronized Map<String, String> bound() {
        return new LinkedHashMap<>(bound);
    }

    /** The node the pod was bound to, or null. */
    public synchronized String boundNode(String uid) {
        return bound.get(uid);
    }

    public synchronized int calls() {
        return calls;
    }
}
