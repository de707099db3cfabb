package dev.muster.core.provision;

import dev.muster.core.gang.Gang;
import dev.muster.core.model.Refusal;

/**
 * How a gang stands against the nodes there are, for {@link ProvisionHold}: whether it fits their free room now,
 * whether preemption would place it, and the reservation that holds provisioned room for it. Called under the core's
 * lock only ({@link ClusterRoom} reads the core's books, on the core's own clock).
 */
public interface Room {
    /** Where a gang's room would come from. */
    enum Outlook {
        /** It fits on the nodes' free room now (or runs, or is admitted). */
        FITS,
        /** Preemption or queue reclaim would place it. */
        PREEMPTS,
        /** Only more nodes would place it. */
        NEEDS_NODES
    }

    Outlook outlook(Gang g);

    /** Whether the gang holds a reservation or runs. */
    boolean admitted(Gang g);

    /** Reserves the gang's room on the nodes there are now; null when reserved, else why not. */
    Refusal reserve(Gang g);
}
