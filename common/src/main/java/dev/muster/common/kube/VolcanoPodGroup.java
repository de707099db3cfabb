package dev.muster.common.kube;

/** A Volcano {@code scheduling.volcano.sh/v1beta1 PodGroup} (namespaced); see {@link PodGroupConverter}. */
public final class VolcanoPodGroup extends RawCustomObject {
    public VolcanoPodGroup() {
        setApiVersion(VolcanoCrds.API_VERSION);
        setKind(VolcanoCrds.PODGROUP_KIND);
    }
}
