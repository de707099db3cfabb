package dev.muster.core.scheduler;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The answer to a filter: the subset of the given nodes that fit, and a reason for each node that does
 * not. {@code failed} nodes may fit later (kube-scheduler retries, preemption may help);
 * {@code unresolvable} nodes will not fit until something outside changes (PodGroup missing, queue
 * closed). Every given node is in exactly one of the three.
 */
public record FilterResult(List<String> feasible, Map<String, String> failed, Map<String, String> unresolvable) {
    public FilterResult {
        feasible = List.copyOf(feasible);
        failed = Collections.unmodifiableMap(new LinkedHashMap<>(failed)); // in node order, for stable answers
        unresolvable = Collections.unmodifiableMap(new LinkedHashMap<>(unresolvable));
    }
}
