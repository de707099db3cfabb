package dev.muster.core.testing;

import dev.muster.core.model.PodId;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.Evictor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A fake {@link Evictor} that records every eviction asked for, in order, and answers {@link EvictionOutcome.Evicted}
 * at once unless an outcome was set for the pod (by name). Dry runs ({@link #check}) are recorded apart and answer the
 * pod's outcome too, unless a dry-run outcome was set for it. Thread-safe: {@code this} guards all fields.
 */
public final class RecordingEvictor implements Evictor {
    private final List<PodId> asked = new ArrayList<>();
    private final Map<String, EvictionOutcome> outcomes = new HashMap<>();
    private final List<PodId> checked = new ArrayList<>();
    private final Map<String, EvictionOutcome> checkOutcomes = new HashMap<>();

    @Override
    public synchronized CompletionStage<EvictionOutcome> check(PodId pod) {
        checked.add(pod);
        EvictionOutcome real = outcomes.getOrDefault(pod.name(), new EvictionOutcome.Evicted());
        return CompletableFuture.completedFuture(checkOutcomes.getOrDefault(pod.name(), real));
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
