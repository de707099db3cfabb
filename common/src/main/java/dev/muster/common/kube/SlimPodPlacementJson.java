package dev.muster.common.kube;

import static dev.muster.common.kube.SlimJson.string;
import static dev.muster.common.kube.SlimJson.strings;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.kubernetes.client.openapi.models.V1Affinity;
import io.kubernetes.client.openapi.models.V1EphemeralVolumeSource;
import io.kubernetes.client.openapi.models.V1NodeAffinity;
import io.kubernetes.client.openapi.models.V1NodeSelector;
import io.kubernetes.client.openapi.models.V1NodeSelectorRequirement;
import io.kubernetes.client.openapi.models.V1NodeSelectorTerm;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimVolumeSource;
import io.kubernetes.client.openapi.models.V1PodResourceClaim;
import io.kubernetes.client.openapi.models.V1PodSchedulingGate;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Toleration;
import io.kubernetes.client.openapi.models.V1TopologySpreadConstraint;
import io.kubernetes.client.openapi.models.V1Volume;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The placement fields of a pod spec read from JSON ({@link SlimPodJson}) into the slim objects {@link SlimPodPlacement}
 * describes; {@link SlimPodPlacementProto} reads the same from protobuf. Stateless and thread-safe.
 */
final class SlimPodPlacementJson {
    private SlimPodPlacementJson() {}


    /** Reads {@code name}'s value into {@code s} when it is a placement field; false (nothing read) when it is not. */
    static boolean read(String name, JsonReader in, V1PodSpec s) throws IOException {
        switch (name) {
            case "nodeSelector" -> {
                Map<String, String> selector = strings(in, "spec.nodeSelector", k -> true);
                if (selector != null) {
                    s.setNodeSelector(selector);
                }
            }
            case "affinity" -> s.setAffinity(affinity(in));
            case "tolerations" -> keep(SlimJson.array(in, SlimPodPlacementJson::toleration), s::setTolerations);
            case "schedulingGates" -> keep(SlimJson.array(in, r -> gate(r)), s::setSchedulingGates);
            case "topologySpreadConstraints" -> keep(dropNulls(SlimJson.array(in, SlimPodPlacementJson::spread)), s::setTopologySpreadConstraints);
            case "volumes" -> keep(dropNulls(SlimJson.array(in, SlimPodPlacementJson::volume)), s::setVolumes);
            case "resourceClaims" -> keep(SlimJson.array(in, SlimPodPlacementJson::claim), s::setResourceClaims);
            default -> {
                return false;
            }
        }
        return true;
    }

    private static boolean nullValue(JsonReader in) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return true;
        }
        return false;
    }

    private static V1Affinity affinity(JsonReader in) throws IOException {
        if (nullValue(in)) {
            return null;
        }
        V1Affinity a = new V1Affinity();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "nodeAffinity" -> a.setNodeAffinity(nodeAffinity(in));
                case "podAffinity" -> {
                    if (requiredTerms(in, "spec.affinity.podAffinity")) {
                        a.setPodAffinity(SlimPodPlacement.requiredPodAffinity());
                    }
                }
                case "podAntiAffinity" -> {
                    if (requiredTerms(in, "spec.affinity.podAntiAffinity")) {
                        a.setPodAntiAffinity(SlimPodPlacement.requiredPodAntiAffinity());
                    }
                }
                default -> in.skipValue();
            }
        }
        in.endObject();
        return SlimPodPlacement.noAffinity(a);
    }

    /** Whether a pod (anti-)affinity has required terms. */
    private static boolean requiredTerms(JsonReader in, String where) throws IOException {
        if (nullValue(in)) {
            return false;
        }
        boolean any = false;
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("requiredDuringSchedulingIgnoredDuringExecution")) {
                any |= !SlimJson.array(in, r -> {
                    r.skipValue();
                    return Boolean.TRUE;
                }).isEmpty();
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return any;
    }

    private static V1NodeAffinity nodeAffinity(JsonReader in) throws IOException {
        if (nullValue(in)) {
            return null;
        }
        V1NodeSelector required = null;
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("requiredDuringSchedulingIgnoredDuringExecution")) {
                required = nodeSelector(in);
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return SlimPodPlacement.nodeAffinity(required);
    }

    private static V1NodeSelector nodeSelector(JsonReader in) throws IOException {
        if (nullValue(in)) {
            return null;
        }
        List<V1NodeSelectorTerm> terms = new ArrayList<>();
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("nodeSelectorTerms")) {
                terms = SlimJson.array(in, SlimPodPlacementJson::term);
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return new V1NodeSelector().nodeSelectorTerms(terms);
    }

    private static V1NodeSelectorTerm term(JsonReader in) throws IOException {
        V1NodeSelectorTerm t = new V1NodeSelectorTerm();
        if (nullValue(in)) {
            return t;
        }
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "matchExpressions" -> t.setMatchExpressions(nonEmpty(SlimJson.array(in, r -> requirement(r, "matchExpressions"))));
                case "matchFields" -> t.setMatchFields(nonEmpty(SlimJson.array(in, r -> requirement(r, "matchFields"))));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return t;
    }

    private static V1NodeSelectorRequirement requirement(JsonReader in, String kind) throws IOException {
        String where = "spec.affinity.nodeAffinity." + kind;
        V1NodeSelectorRequirement r = new V1NodeSelectorRequirement();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "key" -> r.setKey(string(in, where + ".key"));
                case "operator" -> r.setOperator(string(in, where + ".operator"));
                case "values" -> r.setValues(nonEmpty(SlimJson.array(in, v -> string(v, where + ".values"))));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return r;
    }

    private static V1Toleration toleration(JsonReader in) throws IOException {
        V1Toleration t = new V1Toleration();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "key" -> t.setKey(SlimPodPlacement.emptyToNull(string(in, "spec.tolerations.key")));
                case "operator" -> t.setOperator(SlimPodPlacement.emptyToNull(string(in, "spec.tolerations.operator")));
                case "value" -> t.setValue(SlimPodPlacement.emptyToNull(string(in, "spec.tolerations.value")));
                case "effect" -> t.setEffect(SlimPodPlacement.emptyToNull(string(in, "spec.tolerations.effect")));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return t;
    }

    private static V1PodSchedulingGate gate(JsonReader in) throws IOException {
        V1PodSchedulingGate g = new V1PodSchedulingGate();
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("name")) {
                g.setName(string(in, "spec.schedulingGates.name"));
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return g;
    }

    /** A topology spread constraint that filters ({@code DoNotSchedule}), or null. */
    private static V1TopologySpreadConstraint spread(JsonReader in) throws IOException {
        String mode = null;
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("whenUnsatisfiable")) {
                mode = string(in, "spec.topologySpreadConstraints.whenUnsatisfiable");
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return SlimPodPlacement.spread(mode);
    }

    /** A volume of a persistent volume claim or an ephemeral one (its name and claim), or null. */
    private static V1Volume volume(JsonReader in) throws IOException {
        V1Volume v = new V1Volume();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "name" -> v.setName(string(in, "spec.volumes.name"));
                case "persistentVolumeClaim" -> {
                    if (!nullValue(in)) {
                        V1PersistentVolumeClaimVolumeSource pvc = new V1PersistentVolumeClaimVolumeSource();
                        in.beginObject();
                        while (in.hasNext()) {
                            if (in.nextName().equals("claimName")) {
                                pvc.setClaimName(string(in, "spec.volumes.persistentVolumeClaim.claimName"));
                            } else {
                                in.skipValue();
                            }
                        }
                        in.endObject();
                        v.setPersistentVolumeClaim(pvc);
                    }
                }
                case "ephemeral" -> {
                    if (!nullValue(in)) {
                        in.skipValue();
                        v.setEphemeral(new V1EphemeralVolumeSource());
                    }
                }
                default -> in.skipValue();
            }
        }
        in.endObject();
        return SlimPodPlacement.kept(v);
    }

    private static V1PodResourceClaim claim(JsonReader in) throws IOException {
        V1PodResourceClaim c = new V1PodResourceClaim();
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("name")) {
                c.setName(string(in, "spec.resourceClaims.name"));
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return c;
    }

    /** Sets {@code list} when something was kept (else the spec's default stays, as when the field is absent). */
    private static <T> void keep(List<T> list, java.util.function.Consumer<List<T>> setter) {
        if (list != null && !list.isEmpty()) {
            setter.accept(list);
        }
    }

    private static <T> List<T> nonEmpty(List<T> list) {
        return list == null || list.isEmpty() ? null : list;
    }

    private static <T> List<T> dropNulls(List<T> list) {
        list.removeIf(java.util.Objects::isNull);
        return list;
    }
}
