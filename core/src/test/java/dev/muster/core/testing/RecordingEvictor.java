package dev.muster.core.testing;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.PreemptionRecord;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.Evictor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A fake {@link Evictor} that records every eviction asked for, in order, and answers {@link EvictionOutcome.Evicted}
 * at once unless an outcome was set for the pod (by name). Dry runs ({@link #check}) are recorded apart and answer the
 * pod's outcome too, unless a dry-run outcome was set for it. Decisions recorded for a next leader are kept in memory
 * (share one instance between two schedulers to play a leader change). Thread-safe: {@code this} guards all fields.
 */
public final class RecordingEvictor implements Evictor {
    private final List<PodId> asked = new ArrayList<>();
    private final Map<String, EvictionOutcome> outcomes = new HashMap<>();
    private final List<PodId> checked = new ArrayList<>();
    private final Map<String, EvictionOutcome> checkOutcomes = new HashMap<>();
    private final Map<GangKey, PreemptionRecord> records = new LinkedHashMap<>();
    private String recordRefusal;
    private List<Runnable> heldChecks; // null: dry runs answer at once

    @Override
    public synchronized CompletionStage<String> record(PreemptionRecord decision) {
        if (recordRefusal == null) {
            records.put(decision.preemptor(), decision);
        }
        return CompletableFuture.completedFuture(recordRefusal);
    }

    @Override
    public synchronized void forget(PreemptionRecord decision) {
        records.remove(decision.preemptor(), records.get(decision.preemptor()) instanceof PreemptionRecord r
                && r.id().equals(decision.id()) ? r : null);
    }

    private int failedReads;

    @Override
    public synchronized CompletionStage<List<PreemptionRecord>> records() {
        if (failedReads > 0) {
            failedReads--;
            return CompletableFuture.failedFuture(new IllegalStateException("read Lease: HTTP 403"));
        }
        return CompletableFuture.completedFuture(List.copyOf(records.values()));
    }

    /** The next {@code n} reads of the records fail. */
    public synchronized RecordingEvictor failReads(int n) {
        failedReads = n;
        return this;
    }

    /** The decisions recorded and not forgotten, as a next leader would read them. */
    public synchronized List<PreemptionRecord> stored() {
        return List.copyOf(records.values());
    }

    /** Records are refused with {@code why} from now on (null: stored again). */
    public synchronized RecordingEvictor refuseRecords(String why) {
        recordRefusal = why;
        return this;
    }

    @Override
    public synchronized CompletionStage<EvictionOutcome> check(PodId pod) {
        checked.add(pod);
        EvictionOutcome real = outcomes.getOrDefault(pod.name(), new EvictionOutcome.Evicted());
        EvictionOutcome outcome = checkOutcomes.getOrDefault(pod.name(), real);
        if (heldChecks == null) {
            return CompletableFuture.completedFuture(outcome);
        }
        CompletableFuture<EvictionOutcome> answer = new CompletableFuture<>();
        heldChecks.add(() -> answer.complete(outcome));
        return answer;
    }

    /** Dry runs from now on are answered only when {@link #releaseChecks} is called (an API server slow to answer). */
    public synchronized RecordingEvictor holdChecks() {
        heldChecks = new ArrayList<>();
        return this;
    }

    /** Answers the dry runs held so far (on the calling thread, outside this evictor's monitor) and answers later ones at once. */
    public void releaseChecks() {
        List<Runnable> held;
        synchronized (this) {
            held = heldChecks == null ? List.of() : heldChecks;
            heldChecks = null;
        }
        held.forEach(Runnable::run);
    }

    /** Dry runs of the pod named {@code name} answer {@code outcome} from now on (whatever its real evictions answer). */
    public synchronized RecordingEvictor answerCheck(String name, EvictionOutcome outcome) {
        checkOutcomes.put(name, outcome);
        return this;
    }

    /** The names of the pods checked by a dry run, in order (repeats included). */
    public synchronized List<String> checked() {
        List<String> out = new ArrayList<>();
        for (PodId p : checked) {
            out.add(p.name());
        }
        return out;
    }

    @Override
    public synchronized CompletionStage<EvictionOutcome> evict(PodId pod, String why) {
        asked.add(pod);
        return CompletableFuture.completedFuture(outcomes.getOrDefault(pod.name(), new EvictionOutcome.Evicted()));
    }

    /** Evictions of the pod named {@code name} answer {@code outcome} from now on. */
    public synchronized RecordingEvictor answer(String name, EvictionOutcome outcome) {
        outcomes.put(name, outcome);
        return this;
    }

    /** The names of the pods asked to be evicted, in order (repeats included). */
    public synchronized List<String> asked() {
        List<String> out = new ArrayList<>();
        for (PodId p : asked) {
            out.add(p.name());
        }
        return out;
    }
}
