package dev.muster.demo.driver;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the scheduler driver did: scheduling cycles and their latency (filter + prioritize over HTTP), pods
 * no node could take (kube-scheduler's own filters, or the extender), failed calls, binds and failed binds
 * (each one retried), with a sample of distinct bind errors. Thread-safe: {@code this} guards every field.
 */
public final class DriverStats {
    private static final int MAX_ERROR_SAMPLES = 8;

    private long[] cycleNanos = new long[1024];
    private int cycles;
    private long[] firstTryNanos = new long[1024];
    private int firstTries;
    private long noNodeFits;
    private long unschedulable;
    private long callErrors;
    private long binds;
    private long bindErrors;
    private final Map<String, Long> bindErrorSamples = new LinkedHashMap<>();
    private final java.util.Set<String> singleWaited = new java.util.HashSet<>(); // uids of single pods whose first try failed
    private final Map<String, Long> singleFirstReasons = new LinkedHashMap<>();

    synchronized void cycle(long nanos) {
        if (cycles == cycleNanos.length) {
            cycleNanos = Arrays.copyOf(cycleNanos, cycles * 2);
        }
        cycleNanos[cycles++] = nanos;
    }

    /** A pod's first scheduling cycle began {@code nanos} (real) after it entered the queue. */
    synchronized void firstTry(long nanos) {
        if (firstTries == firstTryNanos.length) {
            firstTryNanos = Arrays.copyOf(firstTryNanos, firstTries * 2);
        }
        firstTryNanos[firstTries++] = nanos;
    }

    synchronized void noNodeFits() {
        noNodeFits++;
    }

    synchronized void unschedulable() {
        unschedulable++;
    }

    /**
     * A single pod's try failed: the first time for this pod, its reason counts (numbers and node names replaced, so
     * like reasons count together).
     */
    synchronized void singlePodWaits(String uid, String reason) {
        if (singleWaited.add(uid)) {
            singleFirstReasons.merge(reason.replaceAll("node-[0-9]+", "node-N").replaceAll("[0-9]+", "N"), 1L, Long::sum);
        }
    }

    synchronized void callError() {
        callErrors++;
    }

    synchronized void bound() {
        binds++;
    }

    synchronized void bindFailed(String error) {
        bindErrors++;
        String kind = error.replaceAll("[0-9]+", "N");
        if (bindErrorSamples.containsKey(kind) || bindErrorSamples.size() < MAX_ERROR_SAMPLES) {
            bindErrorSamples.merge(kind, 1L, Long::sum);
        }
    }

    /**
     * An immutable copy.
     *
     * @param firstTryNanos per pod, the real time from entering the scheduling queue to its first cycle
     */
    public record Snapshot(long[] cycleNanos, long noNodeFits, long unschedulable, long callErrors, long binds, long bindErrors,
                           Map<String, Long> bindErrorSamples, Map<String, Long> singleFirstReasons, long[] firstTryNanos) {
        public long cycles() {
            return cycleNanos.length;
        }
    }

    public synchronized Snapshot snapshot() {
        return new Snapshot(Arrays.copyOf(cycleNanos, cycles), noNodeFits, unschedulable, callErrors, binds, bindErrors,
                Map.copyOf(bindErrorSamples), Map.copyOf(singleFirstReasons), Arrays.copyOf(firstTryNanos, firstTries));
    }

    public synchronized long cycles() {
        return cycles;
    }

    public synchronized long binds() {
        return binds;
    }

    /** The distinct bind errors seen (numbers replaced by N), most frequent first. */
    public synchronized List<String> bindErrorKinds() {
        List<Map.Entry<String, Long>> l = new ArrayList<>(bindErrorSamples.entrySet());
        l.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        return l.stream().map(e -> e.getValue() + "× " + e.getKey()).toList();
    }
}
