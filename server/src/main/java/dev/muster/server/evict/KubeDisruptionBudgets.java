package dev.muster.server.evict;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.muster.common.kube.KubeDisruptionBudget;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.DisruptionBudgets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link DisruptionBudgets} from the cluster as last observed: the {@code policy/v1} PodDisruptionBudgets of every
 * namespace (fed by the cluster sync's informer: {@link #upserted}, {@link #deleted}) and, for each candidate victim,
 * its labels and phase from the cluster sync's pod cache ({@link Pods}).
 *
 * <p>{@link #blocking} answers as the Eviction API would decide the evictions one after another: a budget covering
 * {@code k} of the pods refuses the set when {@code k > status.disruptionsAllowed}, or when {@code k > 0} and its status
 * is older than its spec ({@code status.observedGeneration < metadata.generation}: the API server answers 429 until the
 * disruption controller has caught up); a pod two budgets cover cannot be evicted at all (the Eviction API refuses
 * it). Pods the Eviction API evicts without asking a budget — not Running (Pending, Succeeded, Failed) or already
 * terminating — and pods the cache does not know (gone) count for none. Selector semantics: {@link PodSelector}.
 * Until the pod cache is given, every non-empty set is refused ("not listed yet"): nothing is evicted on guesswork.
 * {@link #tally} answers the same for victims chosen one unit at a time, counting per budget.
 *
 * <p>Thread-safe and lock-free for readers, as the scheduling core asks it under its own lock: the budgets are
 * immutable {@link Budget}s in copy-on-write per-namespace maps inside a {@link ConcurrentHashMap} (the informer's
 * handler thread is the one writer); the pod cache is client-java's thread-safe indexer, read, never written. A tally
 * belongs to the decision (the thread) that made it.
 */
public final class KubeDisruptionBudgets implements DisruptionBudgets {
    /** What a budget needs to know of a pod: its labels, and whether the Eviction API asks budgets before evicting it. */
    public record PodFacts(Map<String, String> labels, boolean budgeted) {}

    /** The pod cache: the facts of {@code pod} (this uid), or null when it is not (or no longer) known. Thread-safe. */
    @FunctionalInterface
    public interface Pods {
        PodFacts of(PodId pod);
    }

    /**
     * The facts of {@code pod} as the cached {@code cached} (null: not cached) shows them; null unless it is that very
     * pod (same uid). The Eviction API asks no budget for a pod that is not Running or is being deleted.
     */
    public static PodFacts factsOf(PodId pod, io.kubernetes.client.openapi.models.V1Pod cached) {
        if (cached == null || cached.getMetadata() == null || !pod.uid().equals(cached.getMetadata().getUid())) {
            return null;
        }
        String phase = cached.getStatus() == null ? null : cached.getStatus().getPhase();
        boolean ignored = "Pending".equals(phase) || "Succeeded".equals(phase) || "Failed".equals(phase)
                || cached.getMetadata().getDeletionTimestamp() != null;
        return new PodFacts(cached.getMetadata().getLabels(), !ignored);
    }

    /** One budget as observed. */
    record Budget(String namespace, String name, PodSelector selector, int disruptionsAllowed, boolean current) {
        String key() {
            return namespace + "/" + name;
        }

        /** Reads {@code pdb}; a malformed status reads as allowing no disruption (the safe reading). */
        static Budget of(KubeDisruptionBudget pdb) {
            JsonObject spec = pdb.getSpec();
            JsonObject status = pdb.getStatus();
            PodSelector selector = PodSelector.parse(spec == null ? null : spec.get("selector"));
            int allowed = status == null ? 0 : (int) number(status.get("disruptionsAllowed"), 0);
            long observed = status == null ? 0 : number(status.get("observedGeneration"), 0);
            Long generation = pdb.getMetadata().getGeneration();
            return new Budget(pdb.getMetadata().getNamespace(), pdb.getMetadata().getName(), selector, allowed,
                    generation == null || observed >= generation);
        }

        private static long number(JsonElement e, long absent) {
            if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
                return absent;
            }
            try {
                return e.getAsLong();
            } catch (NumberFormatException ex) {
                return absent;
            }
        }
    }

    /** What refuses every set of victims until the pod cache is given. */
    private static final String NOT_LISTED = "PodDisruptionBudgets (not listed yet)";
    /** namespace → (name → budget); each inner map immutable, replaced whole. */
    private final ConcurrentHashMap<String, Map<String, Budget>> byNamespace = new ConcurrentHashMap<>();
    private volatile Pods pods;

    /** The pod cache to read victims' labels from (the cluster sync's); until then every set is refused. */
    public void readPodsFrom(Pods pods) {
        this.pods = Objects.requireNonNull(pods, "pods");
    }

    /** A budget was added or changed. */
    public void upserted(KubeDisruptionBudget pdb) {
        if (pdb == null || pdb.getMetadata() == null || pdb.getMetadata().getName() == null || pdb.getMetadata().getNamespace() == null) {
            return;
        }
        Budget b = Budget.of(pdb);
        byNamespace.compute(b.namespace(), (ns, old) -> {
            Map<String, Budget> m = old == null ? new TreeMap<>() : new TreeMap<>(old);
            m.put(b.name(), b);
            return java.util.Collections.unmodifiableMap(m);
        });
    }

    /** A budget was deleted. */
    public void deleted(KubeDisruptionBudget pdb) {
        if (pdb == null || pdb.getMetadata() == null || pdb.getMetadata().getName() == null || pdb.getMetadata().getNamespace() == null) {
            return;
        }
        String name = pdb.getMetadata().getName();
        byNamespace.computeIfPresent(pdb.getMetadata().getNamespace(), (ns, old) -> {
            if (!old.containsKey(name)) {
                return old;
            }
            Map<String, Budget> m = new TreeMap<>(old);
            m.remove(name);
            return m.isEmpty() ? null : java.util.Collections.unmodifiableMap(m);
        });
    }

    /** How many budgets are known (for logs and tests). */
    public int size() {
        return byNamespace.values().stream().mapToInt(Map::size).sum();
    }

    /** A fresh {@link #tally}'s answer: nothing counted yet, so it asks about {@code victims} alone. */
    @Override
    public String blocking(Collection<PodId> victims) {
        return tally().blocking(victims);
    }

    /**
     * Counts per budget, so that each question reads only the pods asked about: a decision may read every running pod of
     * a large cluster. Answers about the pods counted so far and those asked about together (the budget named: namespaces in
     * order, then a pod two budgets cover, then budgets by name); each namespace's
     * budgets are read once, when a pod of it is first asked about, and kept for the decision.
     */
    @Override
    public Tally tally() {
        return new Tally() {
            private final Map<String, Budget[]> budgetsByNamespace = new HashMap<>(); // as first read; empty: none there
            private final Map<Budget, Integer> covered = new HashMap<>(); // pods counted that each budget covers

            @Override
            public String blocking(Collection<PodId> more) {
                if (more.isEmpty()) {
                    return null;
                }
                Pods cache = pods;
                if (cache == null) {
                    return NOT_LISTED;
                }
                for (Map.Entry<String, List<PodFacts>> ns : budgeted(more, cache).entrySet()) {
                    Budget[] all = budgetsByNamespace.get(ns.getKey());
                    int[] adds = new int[all.length];
                    String refused = cover(all, ns.getValue(), adds);
                    if (refused != null) {
                        return refused;
                    }
                    for (int i = 0; i < all.length; i++) {
                        if (adds[i] > 0 && (!all[i].current() || covered.getOrDefault(all[i], 0) + adds[i] > all[i].disruptionsAllowed())) {
                            return all[i].key();
                        }
                    }
                }
                return null;
            }

            @Override
            public void count(Collection<PodId> more) {
                Pods cache = pods;
                if (more.isEmpty() || cache == null) {
                    return;
                }
                for (Map.Entry<String, List<PodFacts>> ns : budgeted(more, cache).entrySet()) {
                    Budget[] all = budgetsByNamespace.get(ns.getKey());
                    int[] adds = new int[all.length];
                    cover(all, ns.getValue(), adds);
                    for (int i = 0; i < all.length; i++) {
                        if (adds[i] > 0) {
                            covered.merge(all[i], adds[i], Integer::sum);
                        }
                    }
                }
            }

            /** The facts of the pods the Eviction API would ask a budget about, by namespace in order. */
            private Map<String, List<PodFacts>> budgeted(Collection<PodId> more, Pods cache) {
                Map<String, List<PodFacts>> byNs = new TreeMap<>();
                for (PodId pod : more) {
                    Budget[] all = budgetsByNamespace.computeIfAbsent(pod.namespace(), ns -> {
                        Map<String, Budget> m = byNamespace.get(ns);
                        return m == null ? new Budget[0] : m.values().toArray(Budget[]::new);
                    });
                    if (all.length == 0) {
                        continue; // no budget there: nothing to look up
                    }
                    PodFacts facts = cache.of(pod);
                    if (facts != null && facts.budgeted()) {
                        byNs.computeIfAbsent(pod.namespace(), k -> new ArrayList<>()).add(facts);
                    }
                }
                return byNs;
            }
        };
    }

    private static String twoCover(Budget first, Budget second) {
        return first.key() + " and " + second.key() + " (both cover one pod: the Eviction API evicts no pod two budgets cover)";
    }

    /**
     * Adds to {@code covered[i]} how many of {@code pods} budget {@code all[i]} covers; or, for the first pod two budgets
     * cover, says so (the Eviction API evicts no such pod), counting on only partly.
     */
    private static String cover(Budget[] all, List<PodFacts> pods, int[] covered) {
        for (PodFacts pod : pods) {
            int first = -1;
            for (int i = 0; i < all.length; i++) {
                if (all[i].selector().matches(pod.labels())) {
                    if (first >= 0) {
                        return twoCover(all[first], all[i]);
                    }
                    first = i;
                }
            }
            if (first >= 0) {
                covered[first]++;
            }
        }
        return null;
    }
}
