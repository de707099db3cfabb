package dev.muster.server.http.wire;

import dev.muster.core.scheduler.Victims;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A preempt request ({@code ExtenderPreemptionArgs} on the wire). kube-scheduler sends
 * {@code NodeNameToMetaVictims} when the extender is {@code nodeCacheCapable}, else
 * {@code NodeNameToVictims} with full pods; the decoder reduces the latter to victim UIDs, so both
 * arrive here as meta victims.
 *
 * @param pod                   the preemptor
 * @param nodeNameToMetaVictims candidate node → victims, in wire order; unmodifiable, never null
 */
public record PreemptionArgs(WirePod pod, Map<String, Victims> nodeNameToMetaVictims) {
    public PreemptionArgs {
        Objects.requireNonNull(pod, "pod");
        nodeNameToMetaVictims = nodeNameToMetaVictims == null
                ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(nodeNameToMetaVictims));
    }
}
