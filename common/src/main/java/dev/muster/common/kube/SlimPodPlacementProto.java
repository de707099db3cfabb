package dev.muster.common.kube;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
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

/**
 * The placement fields of a pod spec read from protobuf ({@link SlimPodProto}) into the slim objects
 * {@link SlimPodPlacement} describes, equal to what {@link SlimPodPlacementJson} reads from JSON. Field numbers:
 * {@code k8s.io/api/core/v1/generated.proto} ({@code PodSpec}, {@code Affinity}, {@code NodeAffinity},
 * {@code NodeSelector}, {@code NodeSelectorTerm}, {@code NodeSelectorRequirement}, {@code PodAffinity},
 * {@code Toleration}, {@code PodSchedulingGate}, {@code TopologySpreadConstraint}, {@code Volume}, {@code VolumeSource},
 * {@code PodResourceClaim}). Stateless and thread-safe.
 */
final class SlimPodPlacementProto {
    private SlimPodPlacementProto() {}


    /** Reads field {@code tag} of a {@code PodSpec} into {@code s} when it is a placement field; false when it is not. */
    static boolean read(int tag, CodedInputStream in, V1PodSpec s) throws IOException {
        switch (WireFormat.getTagFieldNumber(tag)) {
            case 7 -> s.setNodeSelector(SlimProto.stringEntry(in, tag, "spec.nodeSelector", k -> true, s.getNodeSelector()));
            case 18 -> s.setAffinity(SlimPodPlacement.noAffinity(SlimProto.<V1Affinity>message(in, tag, "spec.affinity", SlimPodPlacementProto::affinity)));
            case 22 -> s.setTolerations(SlimPodPlacement.add(s.getTolerations(), SlimProto.message(in, tag, "spec.tolerations", SlimPodPlacementProto::toleration)));
            case 38 -> s.setSchedulingGates(SlimPodPlacement.add(s.getSchedulingGates(), SlimProto.message(in, tag, "spec.schedulingGates", r -> {
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
            case 33 -> s.setTopologySpreadConstraints(SlimPodPlacement.add(s.getTopologySpreadConstraints(),
                    SlimProto.message(in, tag, "spec.topologySpreadConstraints", SlimPodPlacementProto::spread)));
            case 1 -> s.setVolumes(SlimPodPlacement.add(s.getVolumes(), SlimProto.message(in, tag, "spec.volumes", SlimPodPlacementProto::volume)));
            case 39 -> s.setResourceClaims(SlimPodPlacement.add(s.getResourceClaims(), SlimProto.message(in, tag, "spec.resourceClaims", r -> {
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
                case 1 -> a.setNodeAffinity(SlimProto.message(in, t, "spec.affinity.nodeAffinity", SlimPodPlacementProto::nodeAffinity));
                case 2 -> {
                    if (SlimProto.message(in, t, "spec.affinity.podAffinity", r -> requiredTerms(r, "spec.affinity.podAffinity"))) {
                        a.setPodAffinity(SlimPodPlacement.requiredPodAffinity());
                    }
                }
                case 3 -> {
                    if (SlimProto.message(in, t, "spec.affinity.podAntiAffinity", r -> requiredTerms(r, "spec.affinity.podAntiAffinity"))) {
                        a.setPodAntiAffinity(SlimPodPlacement.requiredPodAntiAffinity());
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
                            terms.add(SlimProto.message(r, t2, "nodeSelectorTerms", SlimPodPlacementProto::term));
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
        return SlimPodPlacement.nodeAffinity(a.getRequiredDuringSchedulingIgnoredDuringExecution());
    }

    private static V1NodeSelectorTerm term(CodedInputStream in) throws IOException {
        V1NodeSelectorTerm term = new V1NodeSelectorTerm();
        forEachField(in, "nodeSelectorTerms", (t, n) -> {
            switch (n) {
                case 1 -> term.setMatchExpressions(SlimPodPlacement.add(term.getMatchExpressions(), SlimProto.message(in, t, "matchExpressions",
                        r -> requirement(r, "matchExpressions"))));
                case 2 -> term.setMatchFields(SlimPodPlacement.add(term.getMatchFields(), SlimProto.message(in, t, "matchFields",
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
                case 3 -> r.setValues(SlimPodPlacement.add(r.getValues(), SlimProto.string(in, t, where + ".values")));
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
        return SlimPodPlacement.spread(mode[0]);
    }

    private static V1Volume volume(CodedInputStream in) throws IOException {
        V1Volume v = new V1Volume();
        forEachField(in, "spec.volumes", (t, n) -> {
            switch (n) {
                case 1 -> v.setName(SlimProto.string(in, t, "spec.volumes.name"));
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
        return SlimPodPlacement.kept(v);
    }
}
