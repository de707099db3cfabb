package dev.muster.core.scheduler;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The answer to a filter: the subset of the given nodes that fit, and a reason for each node that does
 * not. {@code failed} nodes may fit later (kube-scheduler retries, preemption may help);
 * {@code unresolvable} nodes will not fit until something outside changes (PodGroup missing, queue
 * closed). A given node in none of the three fits but was passed over: Muster picked another node for the pod
 * (kube-scheduler drops such a node; see {@link GangScheduler#filter(dev.muster.core.model.Pod, List, boolean)}).
 *
 * <p>The record takes ownership of the collections it is given (the filter that built them drops them) and
 * exposes them read-only, without copying: at 5,000 nodes a copy per answer was measurable. Maps iterate in
 * node order when the builder used insertion-ordered maps, for stable answers.
 */
public record FilterResult(List<String> feasible, Map<String, String> failed, Map<String, String> unresolvable) {
    public FilterResult {
        feasible = Collections.unmodifiableList(feasible);
        failed = Collections.unmodifiableMap(failed);
        unresolvable = Collections.unmodifiableMap(unresolvable);
    }
}
