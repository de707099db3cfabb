package dev.muster.common.kube;

import com.google.gson.JsonObject;
import dev.muster.core.model.DisruptionMode;
import dev.muster.core.model.PreemptionPolicy;

/**
 * {@code scheduling.k8s.io/v1beta1} (Kubernetes 1.37 on), field for field as its Go types define it:
 * <ul>
 *   <li>{@code spec.workloadRef{workloadName, templateName}};</li>
 *   <li>{@code schedulingPolicy} ({@code gang.minCount} is mutable: a change reaches the gang at once),
 *       {@code schedulingConstraints.topology[].key}, {@code priorityClassName}, {@code priority},
 *       {@code resourceClaims} (checked, see {@link KubeGroupFields#checkResourceClaims});</li>
 *   <li>{@code preemptionPolicy}: {@code PreemptLowerPriority} (default) or {@code Never};</li>
 *   <li>{@code disruptionMode}: exactly one of {@code single: {}} (default) or {@code all: {}};</li>
 *   <li>{@code parentCompositePodGroupName} (a child of a CompositePodGroup, a group of groups): Muster does not schedule
 *       groups of groups, and refuses such a PodGroup with a reason naming the field rather than treating the child as a
 *       gang of its own ({@link #unsupported}).</li>
 * </ul>
 */
final class KubeV1beta1 extends KubePodGroupVersion {
    static final String VERSION = "v1beta1";
    static final KubeV1beta1 INSTANCE = new KubeV1beta1();
    private static final String REF = "spec.workloadRef";

    private KubeV1beta1() {
        super(VERSION, REF);
    }

    @Override
    KubernetesPodGroupConverter.TemplateRef templateRef(String where, CrdFields spec) {
        JsonObject ref = spec.object("workloadRef");
        return ref == null ? null : reference(where + " " + REF, ref, "templateName");
    }

    @Override
    KubeGroupFields.Parts parts(String where, JsonObject object) {
        CrdFields o = new CrdFields(where, object);
        var topology = KubeGroupFields.topology(where, o, "topology", "key");
        KubeGroupFields.checkResourceClaims(where, o);
        return new KubeGroupFields.Parts(KubeGroupFields.minMember(where, o), topology, topology != null,
                KubeGroupFields.priorityClassName(o), KubeGroupFields.priority(o), preemptionPolicy(where, o), disruption(where, o));
    }

    @Override
    String unsupported(String where, CrdFields spec) {
        String parent = spec.string("parentCompositePodGroupName");
        if (parent == null || parent.isEmpty()) {
            return "";
        }
        return "spec.parentCompositePodGroupName: the PodGroup belongs to CompositePodGroup \"" + parent
                + "\" (a group of groups, whose minGroupCount child gangs must start together); Muster does not schedule"
                + " groups of groups, and does not schedule this PodGroup as a gang of its own";
    }

    private static PreemptionPolicy preemptionPolicy(String where, CrdFields o) {
        String text = o.string("preemptionPolicy");
        if (text == null) {
            return null;
        }
        PreemptionPolicy p = PreemptionPolicy.parse(text);
        if (p == null) {
            throw new ConversionException(where + ": preemptionPolicy must be \"PreemptLowerPriority\" or \"Never\", got \"" + text + "\"");
        }
        return p;
    }

    private static DisruptionMode disruption(String where, CrdFields o) {
        JsonObject mode = o.object("disruptionMode");
        if (mode == null) {
            return null;
        }
        CrdFields m = new CrdFields(where + ".disruptionMode", mode);
        boolean single = m.object("single") != null;
        boolean all = m.object("all") != null;
        if (single == all) {
            throw new ConversionException(where + ".disruptionMode: exactly one of single or all must be set");
        }
        return all ? DisruptionMode.ALL : DisruptionMode.SINGLE;
    }
}
