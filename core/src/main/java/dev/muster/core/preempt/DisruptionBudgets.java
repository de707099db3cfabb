package dev.muster.core.preempt;

import dev.muster.core.model.PodId;
import java.util.Collection;

/**
 * Port: the PodDisruptionBudgets as last observed. Asked under the scheduling core's lock while victims are chosen, so
 * implementations answer from memory, at once, and never call out.
 */
public interface DisruptionBudgets {
    /**
     * Whether evicting all of {@code pods} together would exceed a budget's {@code disruptionsAllowed}: the budget's
     * {@code namespace/name}, or null when every budget allows it (or none covers them).
     */
    String blocking(Collection<PodId> pods);

    /** No budgets: everything may be evicted. */
    DisruptionBudgets NONE = pods -> null;
}
