package dev.muster.common.kube;

import com.google.gson.JsonObject;
import dev.muster.core.model.DisruptionMode;

/**
 * {@code scheduling.k8s.io/v1alpha2} (Kubernetes 1.36, removed in 1.37), field for field as its Go types define it:
 * <ul>
 *   <li>{@code spec.podGroupTemplateRef.workload{workloadName, podGroupTemplateName}};</li>
 *   <li>{@code schedulingPolicy}, {@code schedulingConstraints.topology[].key} (the development tree's
 *       {@code topologyConstraints[].topologyKey} is read too), {@code priorityClassName}, {@code priority},
 *       {@code resourceClaims} (checked, see {@link KubeGroupFields#checkResourceClaims});</li>
 *   <li>{@code disruptionMode}: the string {@code Pod} (default) or {@code PodGroup} → single or all;</li>
 *   <li>no {@code preemptionPolicy} (the default, PreemptLowerPriority).</li>
 * </ul>
 */
final class KubeV1alpha2 extends KubePodGroupVersion {
    static final String VERSION = "v1alpha2";
    static final KubeV1alpha2 INSTANCE = new KubeV1alpha2();
    private static final String REF = "spec.podGroupTemplateRef";

    private KubeV1alpha2() {
        super(VERSION, REF);
    }

    @Override
    KubernetesPodGroupConverter.TemplateRef templateRef(String where, CrdFields spec) {
        JsonObject ref = spec.object("podGroupTemplateRef");
        if (ref == null) {
            return null;
        }
        JsonObject workload = new CrdFields(where + " " + REF, ref).object("workload");
        if (workload == null) {
            return null; // another kind of reference (none exists in v1alpha2): nothing Muster reads
        }
        return reference(where + " " + REF + ".workload", workload, "podGroupTemplateName");
    }

    @Override
    KubeGroupFields.Parts parts(String where, JsonObject object) {
        CrdFields o = new CrdFields(where, object);
        var topology = KubeGroupFields.topology(where, o, "topology", "key");
        if (topology == null && new CrdFields(where, o.object("schedulingConstraints")).raw("topology") == null) {
            topology = KubeGroupFields.topology(where, o, "topologyConstraints", "topologyKey");
        }
        KubeGroupFields.checkResourceClaims(where, o);
        return new KubeGroupFields.Parts(KubeGroupFields.minMember(where, o), topology, topology != null,
                KubeGroupFields.priorityClassName(o), KubeGroupFields.priority(o), null, disruption(where, o));
    }

    @Override
    String unsupported(String where, CrdFields spec) {
        return "";
    }

    private static DisruptionMode disruption(String where, CrdFields o) {
        String mode = o.string("disruptionMode");
        if (mode == null) {
            return null;
        }
        return switch (mode) {
            case "Pod" -> DisruptionMode.SINGLE;
            case "PodGroup" -> DisruptionMode.ALL;
            default -> throw new ConversionException(where + ": disruptionMode must be \"Pod\" or \"PodGroup\", got \"" + mode + "\"");
        };
    }
}
