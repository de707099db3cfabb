package dev.muster.controller.writer;

import dev.muster.controller.writer.StatusPatchException.Kind;
import dev.muster.core.status.DesiredStatus;
import dev.muster.core.status.StatusKey;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An API server in a map: records every patch, holds the last status written per object, and fails the calls
 * it is told to. Thread-safe: guarded by {@code this}.
 */
public final class FakeStatusPatcher implements StatusPatcher {
    private final Map<StatusKey, DesiredStatus> api = new HashMap<>();
    private final List<StatusKey> calls = new ArrayList<>();
    private final Map<StatusKey, Deque<Kind>> failures = new HashMap<>();
    private Kind failEverything;
    private java.util.Random random;
    private double failureRate;
    private Kind[] randomKinds;
    private Runnable duringNextCall;

    /** The next patches of {@code key} fail with these kinds, in order. */
    public synchronized FakeStatusPatcher failNext(StatusKey key, Kind... kinds) {
        failures.computeIfAbsent(key, k -> new ArrayDeque<>()).addAll(List.of(kinds));
        return this;
    }

    /** Every patch fails with {@code kind} until called with null. */
    public synchronized void failEverything(Kind kind) {
        failEverything = kind;
    }

    /** Each patch fails with probability {@code rate}, with one of {@code kinds}; rate 0 stops it. */
    public synchronized void failRandomly(java.util.Random random, double rate, Kind... kinds) {
        this.random = random;
        this.failureRate = rate;
        this.randomKinds = kinds;
    }

    /** Runs {@code r} inside the next patch call, as if it happened while the request was in flight. */
    public synchronized void duringNextCall(Runnable r) {
        duringNextCall = r;
    }

    @Override
    public void patch(StatusKey key, DesiredStatus desired, DesiredStatus previous) throws StatusPatchException {
        Runnable during;
        synchronized (this) {
            calls.add(key);
            during = duringNextCall;
            duringNextCall = null;
        }
        if (during != null) {
            during.run();
        }
        synchronized (this) {
            Deque<Kind> q = failures.get(key);
            Kind fail = q != null && !q.isEmpty() ? q.poll() : failEverything;
            if (fail == null && failureRate > 0 && random.nextDouble() < failureRate) {
                fail = randomKinds[random.nextInt(randomKinds.length)];
            }
            if (fail != null) {
                throw new StatusPatchException(fail, code(fail), fail == Kind.THROTTLED ? Duration.ofSeconds(3) : null,
                        "injected " + fail, null);
            }
            api.put(key, desired);
        }
    }

    private static int code(Kind kind) {
        return switch (kind) {
            case CONFLICT -> 409;
            case THROTTLED -> 429;
            case SERVER_ERROR -> 500;
            case NOT_FOUND -> 404;
            case REJECTED -> 403;
            case TIMEOUT, TRANSPORT -> 0;
        };
    }

    public synchronized DesiredStatus inApi(StatusKey key) {
        return api.get(key);
    }

    public synchronized Map<StatusKey, DesiredStatus> api() {
        return Map.copyOf(api);
    }

    public synchronized int callCount() {
        return calls.size();
    }

    /** The calls so far, and forgets them. */
    public synchronized List<StatusKey> takeCalls() {
        List<StatusKey> out = List.copyOf(calls);
        calls.clear();
        return out;
    }
}
