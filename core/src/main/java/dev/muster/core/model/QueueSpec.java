package dev.muster.core.model;

import dev.muster.core.resources.Resources;
import java.util.Objects;

/**
 * A Volcano Queue's spec. {@code capability} null means unlimited.
 *
 * @param state the desired state: Open unless the spec (or status, for Volcano's {@code vcctl} close) says
 *              Closed; the controller reports Closing while a closed queue still runs pods
 */
public record QueueSpec(String name, QueueState state, int weight, Resources capability, Resources deserved,
                        Resources guarantee, boolean reclaimable) {
    public QueueSpec {
        Objects.requireNonNull(name, "name");
        state = state == null ? QueueState.OPEN : state;
        deserved = deserved == null ? Resources.ZERO : deserved;
        guarantee = guarantee == null ? Resources.ZERO : guarantee;
    }

    public static QueueSpec open(String name, Resources capability) {
        return new QueueSpec(name, QueueState.OPEN, 1, capability, Resources.ZERO, Resources.ZERO, true);
    }
}
