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

/**
 * A fake {@link Binder} that records every binding under its lock. By default it succeeds at once;
 * pods named in {@link #failFor} fail; with {@link #holdAll()} calls stay pending until released.
 * Thread-safe: {@code this} guards all fields.
 */
public final class RecordingBinder implements Binder {
    private final Map<String, String> bound = new LinkedHashMap<>(); // uid → node
    private final Set<String> failing = new HashSet<>();
    private final List<Held> held = new ArrayList<>();
    private boolean hold;
    private int calls;

    @Override
    public CompletionStage<Void> bind(PodId pod, String node) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Runnable finish;
        synchronized (this) {
            calls++;
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

    public synchronized void holdAll() {
        hold = true;
    }

    /** A call held by {@link #holdAll()}: its pod, its node, and what completes it. */
    private record Held(String uid, String node, Runnable finish) {}

    /** Completes the calls held so far (outside the lock) and keeps holding new ones. */
    public void completeHeld() {
        List<Held> todo;
        synchronized (this) {
            todo = new ArrayList<>(held);
            held.clear();
        }
        todo.forEach(h -> h.finish().run());
    }

    /** Completes the held calls for the pod {@code uid} only (outside the lock); the others stay held. */
    public void completeHeld(String uid) {
        List<Held> todo = new ArrayList<>();
        synchronized (this) {
            for (var it = held.iterator(); it.hasNext(); ) {
                Held h = it.next();
                if (h.uid().equals(uid)) {
                    todo.add(h);
                    it.remove();
                }
            }
        }
        todo.forEach(h -> h.finish().run());
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

    /** Completes every held call (outside the lock). */
    public void releaseHeld() {
        List<Held> todo;
        synchronized (this) {
            hold = false;
            todo = new ArrayList<>(held);
            held.clear();
        }
        todo.forEach(h -> h.finish().run());
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
