package dev.muster.common.kube;

import static dev.muster.common.kube.SlimJson.string;
import static dev.muster.common.kube.SlimJson.strings;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.kubernetes.client.openapi.models.V1Affinity;
import io.kubernetes.client.openapi.models.V1EphemeralVolumeSource;
import io.kubernetes.client.openapi.models.V1NodeAffinity;
import io.kubernetes.client.openapi.models.V1NodeSelector;
import io.kubernetes.client.openapi.models.V1NodeSelectorRequirement;
import io.kubernetes.client.openapi.models.V1NodeSelectorTerm;
import io.kubernetes.client.openapi.models.V1PersistentVolumeClaimVolumeSource;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodAffinity;
import io.kubernetes.client.openapi.models.V1PodAffinityTerm;
import io.kubernetes.client.openapi.models.V1PodAntiAffinity;
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
 * The placement fields of a pod spec, read from JSON ({@link SlimPodJson}) and protobuf ({@link SlimPodProto}) into the
 * same slim objects: {@code nodeSelector}, the required node affinity (terms, expressions, fields), {@code tolerations},
 * {@code schedulingGates}, and markers for what only kube-scheduler judges — a required pod (anti-)affinity (one empty
 * term), topology spread constraints with {@code DoNotSchedule} (their mode only), volumes of a persistent volume claim
 * or ephemeral (name and claim only), resource claims (names only). Lists are set only when something is kept, so both
 * encodings give equal objects. A bound pod keeps none of them ({@link #trim}): they matter only before it is placed.
 * Field numbers: {@code k8s.io/api/core/v1/generated.proto} ({@code PodSpec}, {@code Affinity}, {@code NodeAffinity},
 * {@code NodeSelector}, {@code NodeSelectorTerm}, {@code NodeSelectorRequirement}, {@code PodAffinity},
 * {@code Toleration}, {@code PodSchedulingGate}, {@code TopologySpreadConstraint}, {@code Volume}, {@code VolumeSource},
 * {@code PodResourceClaim}). Stateless and thread-safe.
 */
final class SlimPodPlacement {
    private SlimPodPlacement() {}

    /** A bound pod's placement fields are dropped: only pending pods are placed. */
    static void trim(V1Pod pod) {
        V1PodSpec s = pod.getSpec();
        if (s == null || s.getNodeName() == null || s.getNodeName().isEmpty()) {
            return;
        }
        s.setNodeSelector(null);
        s.setAffinity(null);
        s.setTolerations(null);
        s.setSchedulingGates(null);
        s.setTopologySpreadConstraints(null);
        s.setVolumes(null);
        s.setResourceClaims(null);
    }

    // ---- JSON -----------------------------------------------------------------------------------------------

    /** Reads {@code name}'s value into {@code s} when it is a placement field; false (nothing read) when it is not. */
    static boolean readJson(String name, JsonReader in, V1PodSpec s) throws IOException {
        switch (name) {
            case "nodeSelector" -> {
                Map<String, String> selector = strings(in, "spec.nodeSelector", k -> true);
                if (selector != null) {
                    s.setNodeSelector(selector);
                }
            }
            case "affinity" -> s.setAffinity(affinity(in));
            case "tolerations" -> keep(SlimJson.array(in, SlimPodPlacement::toleration), s::setTolerations);
            case "schedulingGates" -> keep(SlimJson.array(in, r -> gate(r)), s::setSchedulingGates);
            case "topologySpreadConstraints" -> keep(dropNulls(SlimJson.array(in, SlimPodPlacement::spread)), s::setTopologySpreadConstraints);
            case "volumes" -> keep(dropNulls(SlimJson.array(in, SlimPodPlacement::volume)), s::setVolumes);
            case "resourceClaims" -> keep(SlimJson.array(in, SlimPodPlacement::claim), s::setResourceClaims);
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
                        a.setPodAffinity(new V1PodAffinity().requiredDuringSchedulingIgnoredDuringExecution(List.of(new V1PodAffinityTerm())));
                    }
                }
                case "podAntiAffinity" -> {
                    if (requiredTerms(in, "spec.affinity.podAntiAffinity")) {
                        a.setPodAntiAffinity(new V1PodAntiAffinity().requiredDuringSchedulingIgnoredDuringExecution(List.of(new V1PodAffinityTerm())));
                    }
                }
                default -> in.skipValue();
            }
        }
        in.endObject();
        return noAffinity(a);
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
        return required == null ? null : new V1NodeAffinity().requiredDuringSchedulingIgnoredDuringExecution(required);
    }

    private static V1NodeSelector nodeSelector(JsonReader in) throws IOException {
        if (nullValue(in)) {
            return null;
        }
        List<V1NodeSelectorTerm> terms = new ArrayList<>();
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("nodeSelectorTerms")) {
                terms = SlimJson.array(in, SlimPodPlacement::term);
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
                case "key" -> t.setKey(emptyToNull(string(in, "spec.tolerations.key")));
                case "operator" -> t.setOperator(emptyToNull(string(in, "spec.tolerations.operator")));
                case "value" -> t.setValue(emptyToNull(string(in, "spec.tolerations.value")));
                case "effect" -> t.setEffect(emptyToNull(string(in, "spec.tolerations.effect")));
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
        return NodeConstraintsConverter.DO_NOT_SCHEDULE.equals(mode) ? new V1TopologySpreadConstraint().whenUnsatisfiable(mode) : null;
    }

    /** A volume of a persistent volume claim or an ephemeral one (its name and claim), or null. */
    private static V1Volume volume(JsonReader in) throws IOException {
        V1Volume v = new V1Volume();
        boolean kept = false;
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
                        kept = true;
                    }
                }
                case "ephemeral" -> {
                    if (!nullValue(in)) {
                        in.skipValue();
                        v.setEphemeral(new V1EphemeralVolumeSource());
                        kept = true;
                    }
                }
                default -> in.skipValue();
            }
        }
        in.endObject();
        return kept ? v : null;
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

    // ---- protobuf -------------------------------------------------------------------------------------------

    /** Reads field {@code tag} of a {@code PodSpec} into {@code s} when it is a placement field; false when it is not. */
    static boolean readProto(int tag, CodedInputStream in, V1PodSpec s) throws IOException {
        switch (WireFormat.getTagFieldNumber(tag)) {
            case 7 -> s.setNodeSelector(SlimProto.stringEntry(in, tag, "spec.nodeSelector", k -> true, s.getNodeSelector()));
            case 18 -> s.setAffinity(noAffinity(SlimProto.<V1Affinity>message(in, tag, "spec.affinity", SlimPodPlacement::affinity)));
            case 22 -> s.setTolerations(add(s.getTolerations(), SlimProto.message(in, tag, "spec.tolerations", SlimPodPlacement::toleration)));
            case 38 -> s.setSchedulingGates(add(s.getSchedulingGates(), SlimProto.message(in, tag, "spec.schedulingGates", r -> {
                V1PodSchedulingGate g = new V1PodSchedulingGate();
                forEachField(r, "spec.schedulingGates", (t, n) -> {
                    if (n == 1) {
                        g.setName(SlimProto.string(r, t, "spec.schedulingGates.name"));
                        return true;
                    }
                    return false;
                });
                return g;
            })));
            case 33 -> s.setTopologySpreadConstraints(add(s.getTopologySpreadConstraints(),
                    SlimProto.message(in, tag, "spec.topologySpreadConstraints", SlimPodPlacement::spread)));
            case 1 -> s.setVolumes(add(s.getVolumes(), SlimProto.message(in, tag, "spec.volumes", SlimPodPlacement::volume)));
            case 39 -> s.setResourceClaims(add(s.getResourceClaims(), SlimProto.message(in, tag, "spec.resourceClaims", r -> {
                V1PodResourceClaim c = new V1PodResourceClaim();
                forEachField(r, "spec.resourceClaims", (t, n) -> {
                    if (n == 1) {
                        c.setName(SlimProto.string(r, t, "spec.resourceClaims.name"));
                        return true;
                    }
                    return false;
                });
                return c;
            })));
            default -> {
                return false;
            }
        }
        return true;
    }

    /** Reads a field of the current message; false when it did not (it is then skipped). */
    private interface Field {
        boolean read(int tag, int number) throws IOException;
    }

    private static void forEachField(CodedInputStream in, String where, Field f) throws IOException {
        int tag;
        while ((tag = SlimProto.tag(in, where)) != 0) {
            if (!f.read(tag, WireFormat.getTagFieldNumber(tag))) {
                SlimProto.skip(in, tag, where);
            }
        }
    }

    private static V1Affinity affinity(CodedInputStream in) throws IOException {
        V1Affinity a = new V1Affinity();
        forEachField(in, "spec.affinity", (t, n) -> {
            switch (n) {
                case 1 -> a.setNodeAffinity(SlimProto.message(in, t, "spec.affinity.nodeAffinity", SlimPodPlacement::nodeAffinity));
                case 2 -> {
                    if (SlimProto.message(in, t, "spec.affinity.podAffinity", r -> requiredTerms(r, "spec.affinity.podAffinity"))) {
                        a.setPodAffinity(new V1PodAffinity().requiredDuringSchedulingIgnoredDuringExecution(List.of(new V1PodAffinityTerm())));
                    }
                }
                case 3 -> {
                    if (SlimProto.message(in, t, "spec.affinity.podAntiAffinity", r -> requiredTerms(r, "spec.affinity.podAntiAffinity"))) {
                        a.setPodAntiAffinity(new V1PodAntiAffinity().requiredDuringSchedulingIgnoredDuringExecution(List.of(new V1PodAffinityTerm())));
                    }
                }
                default -> {
                    return false;
                }
            }
            return true;
        });
        return a;
    }

    private static boolean requiredTerms(CodedInputStream in, String where) throws IOException {
        boolean[] any = {false};
        forEachField(in, where, (t, n) -> {
            if (n == 1) {
                SlimProto.skip(in, t, where);
                any[0] = true;
                return true;
            }
            return false;
        });
        return any[0];
    }

    private static V1NodeAffinity nodeAffinity(CodedInputStream in) throws IOException {
        V1NodeAffinity a = new V1NodeAffinity();
        forEachField(in, "spec.affinity.nodeAffinity", (t, n) -> {
            if (n == 1) {
                a.setRequiredDuringSchedulingIgnoredDuringExecution(SlimProto.message(in, t, "spec.affinity.nodeAffinity.required", r -> {
                    List<V1NodeSelectorTerm> terms = new ArrayList<>();
                    forEachField(r, "spec.affinity.nodeAffinity.required", (t2, n2) -> {
                        if (n2 == 1) {
                            terms.add(SlimProto.message(r, t2, "nodeSelectorTerms", SlimPodPlacement::term));
                            return true;
                        }
                        return false;
                    });
                    return new V1NodeSelector().nodeSelectorTerms(terms);
                }));
                return true;
            }
            return false;
        });
        return a.getRequiredDuringSchedulingIgnoredDuringExecution() == null ? null : a;
    }

    private static V1NodeSelectorTerm term(CodedInputStream in) throws IOException {
        V1NodeSelectorTerm term = new V1NodeSelectorTerm();
        forEachField(in, "nodeSelectorTerms", (t, n) -> {
            switch (n) {
                case 1 -> term.setMatchExpressions(add(term.getMatchExpressions(), SlimProto.message(in, t, "matchExpressions",
                        r -> requirement(r, "matchExpressions"))));
                case 2 -> term.setMatchFields(add(term.getMatchFields(), SlimProto.message(in, t, "matchFields",
                        r -> requirement(r, "matchFields"))));
                default -> {
                    return false;
                }
            }
            return true;
        });
        return term;
    }

    private static V1NodeSelectorRequirement requirement(CodedInputStream in, String kind) throws IOException {
        String where = "spec.affinity.nodeAffinity." + kind;
        V1NodeSelectorRequirement r = new V1NodeSelectorRequirement();
        forEachField(in, where, (t, n) -> {
            switch (n) {
                case 1 -> r.setKey(SlimProto.string(in, t, where + ".key"));
                case 2 -> r.setOperator(SlimProto.string(in, t, where + ".operator"));
                case 3 -> r.setValues(add(r.getValues(), SlimProto.string(in, t, where + ".values")));
                default -> {
                    return false;
                }
            }
            return true;
        });
        return r;
    }

    private static V1Toleration toleration(CodedInputStream in) throws IOException {
        V1Toleration tol = new V1Toleration();
        forEachField(in, "spec.tolerations", (t, n) -> {
            switch (n) {
                case 1 -> tol.setKey(SlimProto.omitEmpty(in, t, "spec.tolerations.key"));
                case 2 -> tol.setOperator(SlimProto.omitEmpty(in, t, "spec.tolerations.operator"));
                case 3 -> tol.setValue(SlimProto.omitEmpty(in, t, "spec.tolerations.value"));
                case 4 -> tol.setEffect(SlimProto.omitEmpty(in, t, "spec.tolerations.effect"));
                default -> {
                    return false;
                }
            }
            return true;
        });
        return tol;
    }

    private static V1TopologySpreadConstraint spread(CodedInputStream in) throws IOException {
        String[] mode = {null};
        forEachField(in, "spec.topologySpreadConstraints", (t, n) -> {
            if (n == 3) {
                mode[0] = SlimProto.string(in, t, "spec.topologySpreadConstraints.whenUnsatisfiable");
                return true;
            }
            return false;
        });
        return NodeConstraintsConverter.DO_NOT_SCHEDULE.equals(mode[0]) ? new V1TopologySpreadConstraint().whenUnsatisfiable(mode[0]) : null;
    }

    private static V1Volume volume(CodedInputStream in) throws IOException {
        V1Volume v = new V1Volume();
        String[] name = {null};
        forEachField(in, "spec.volumes", (t, n) -> {
            switch (n) {
                case 1 -> name[0] = SlimProto.string(in, t, "spec.volumes.name");
                case 2 -> SlimProto.message(in, t, "spec.volumes", r -> {
                    forEachField(r, "spec.volumes", (t2, n2) -> {
                        switch (n2) {
                            case 10 -> v.setPersistentVolumeClaim(SlimProto.message(r, t2, "spec.volumes.persistentVolumeClaim", p -> {
                                V1PersistentVolumeClaimVolumeSource pvc = new V1PersistentVolumeClaimVolumeSource();
                                forEachField(p, "spec.volumes.persistentVolumeClaim", (t3, n3) -> {
                                    if (n3 == 1) {
                                        pvc.setClaimName(SlimProto.string(p, t3, "spec.volumes.persistentVolumeClaim.claimName"));
                                        return true;
                                    }
                                    return false;
                                });
                                return pvc;
                            }));
                            case 29 -> {
                                SlimProto.skip(r, t2, "spec.volumes.ephemeral");
                                v.setEphemeral(new V1EphemeralVolumeSource());
                            }
                            default -> {
                                return false;
                            }
                        }
                        return true;
                    });
                    return v;
                });
                default -> {
                    return false;
                }
            }
            return true;
        });
        if (v.getPersistentVolumeClaim() == null && v.getEphemeral() == null) {
            return null;
        }
        v.setName(name[0]);
        return v;
    }

    // ---- shared ---------------------------------------------------------------------------------------------

    /** {@code list} with {@code item} added (a new list when null); a null item (not kept) leaves it as it was. */
    private static <T> List<T> add(List<T> list, T item) {
        if (item == null) {
            return list;
        }
        List<T> out = list == null ? new ArrayList<>(2) : list;
        out.add(item);
        return out;
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

    private static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }

    private static V1Affinity noAffinity(V1Affinity a) {
        return a == null || (a.getNodeAffinity() == null && a.getPodAffinity() == null && a.getPodAntiAffinity() == null) ? null : a;
    }

}
