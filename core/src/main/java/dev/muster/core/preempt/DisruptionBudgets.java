package dev.muster.core.preempt;

import dev.muster.core.model.PodId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

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

    /**
     * A count of the victims one decision has chosen so far, for choosing more one unit at a time. By default each
     * question asks {@link #blocking} about every pod counted so far again; an implementation that counts per budget
     * answers in time that grows with the unit asked about, not with the victims already chosen (a decision may read
     * every running pod of a large cluster before it knows a gang cannot fit).
     */
    default Tally tally() {
        List<PodId> counted = new ArrayList<>();
        return new Tally() {
            @Override
            public String blocking(Collection<PodId> more) {
                List<PodId> all = new ArrayList<>(counted.size() + more.size());
                all.addAll(counted);
                all.addAll(more);
                return DisruptionBudgets.this.blocking(all);
            }

            @Override
            public void count(Collection<PodId> more) {
                counted.addAll(more);
            }
        };
    }

    /** The victims one decision has chosen so far ({@link #tally}). Confined to the thread that chooses them. */
    interface Tally {
        /**
         * Whether evicting {@code more} together with every pod counted so far would exceed a budget: the budget's
         * {@code namespace/name}, or null. Counts nothing.
         */
        String blocking(Collection<PodId> more);

        /** Counts {@code more} as going (after {@link #blocking} allowed them). */
        void count(Collection<PodId> more);
    }

    /** No budgets: everything may be evicted. */
    DisruptionBudgets NONE = new DisruptionBudgets() {
        private static final Tally NOTHING_COUNTED = new Tally() {
            @Override
            public String blocking(Collection<PodId> more) {
                return null;
            }

            @Override
            public void count(Collection<PodId> more) {
            }
        };

        @Override
        public String blocking(Collection<PodId> pods) {
            return null;
        }

        @Override
        public Tally tally() {
            return NOTHING_COUNTED;
        }
    };
}
