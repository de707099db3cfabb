package dev.muster.common.kube;

/** A Volcano {@code scheduling.volcano.sh/v1beta1 Queue} (cluster-scoped); see {@link QueueConverter}. */
public final class VolcanoQueue extends RawCustomObject {
    public VolcanoQueue() {
        setApiVersion(VolcanoCrds.API_VERSION);
        setKind(VolcanoCrds.QUEUE_KIND);
    }
}
