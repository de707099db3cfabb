package dev.muster.server.http.wire;

import com.fasterxml.jackson.core.JsonToken;
import dev.muster.common.kube.PodConverter;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.resources.PodRequests;
import dev.muster.core.resources.Resources;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a Kubernetes Pod object (normal lower-camel JSON, case-sensitive keys) into a {@link WirePod},
 * keeping only what the decisions use:
 *
 * <ul>
 *   <li>{@code metadata}: name, namespace, uid, resourceVersion, and the annotations for which
 *       {@link GangMembership#isRelevant} holds or that start with {@code muster.dev/}, and the gang label
 *       {@code scheduling.x-k8s.io/pod-group};</li>
 *   <li>{@code spec}: containers[].resources.requests, initContainers[].resources.requests and
 *       .restartPolicy ({@code Always} = sidecar), resources.requests (pod-level), overhead, priority,
 *       schedulerName, nodeName, schedulingGroup.podGroupName, preemptionPolicy, terminationGracePeriodSeconds;</li>
 *   <li>{@code status.phase}, {@code status.nominatedNodeName};</li>
 *   <li>whether the pod has soft preferences ({@link WirePod#softPreferences}): the kinds of
 *       {@code metadata.ownerReferences}, whether {@code spec.affinity} has preferred node affinity or any pod
 *       (anti-)affinity, and the {@code whenUnsatisfiable} of {@code spec.topologySpreadConstraints}.</li>
 * </ul>
 *
 * Everything else (other labels, managedFields, volumes, tolerations, the affinity terms themselves, conditions, ...) is skipped
 * token by token without building anything. Duplicate keys among the fields read are errors. Stateless.
 */
final class PodReader {
    private PodReader() {}

    /** Reads the pod object at the current token (which must be START_OBJECT). */
    static WirePod read(JsonInput in) throws IOException {
        if (in.current() != JsonToken.START_OBJECT) {
            throw in.typeError("a Pod object", in.current());
        }
        Fields f = new Fields();
        int seen = 0;
        while (in.nextField()) {
            switch (in.fieldName()) {
                case "metadata" -> {
                    seen = in.markSeen(seen, 1);
                    in.next();
                    readMetadata(in, f);
                }
                case "spec" -> {
                    seen = in.markSeen(seen, 2);
                    in.next();
                    readSpec(in, f);
                }
                case "status" -> {
                    seen = in.markSeen(seen, 4);
                    in.next();
                    readStatus(in, f);
                }
                default -> in.skipFieldValue();
            }
        }
        return f.build(in);
    }

    /** Reads only {@code metadata.uid} of the pod object at the current token (victims of preemption). */
    static String readUid(JsonInput in) throws IOException {
        return MetadataFieldReader.read(in, "Pod", "uid");
    }

    private static void readMetadata(JsonInput in, Fields f) throws IOException {
        if (!in.objectOrNull("an object")) {
            return;
        }
        int seen = 0;
        while (in.nextField()) {
            switch (in.fieldName()) {
                case "name" -> {
                    seen = in.markSeen(seen, 1);
                    in.next();
                    f.name = in.stringOrNull();
                }
                case "namespace" -> {
                    seen = in.markSeen(seen, 2);
                    in.next();
                    f.namespace = in.stringOrNull();
                }
                case "uid" -> {
                    seen = in.markSeen(seen, 4);
                    in.next();
                    f.uid = in.stringOrNull();
                }
                case "resourceVersion" -> {
                    seen = in.markSeen(seen, 8);
                    in.next();
                    f.resourceVersion = in.stringOrNull();
                }
                case "annotations" -> {
                    seen = in.markSeen(seen, 16);
                    in.next();
                    readAnnotations(in, f);
                }
                case "labels" -> {
                    seen = in.markSeen(seen, 32);
                    in.next();
                    readLabels(in, f);
                }
                case "ownerReferences" -> {
                    seen = in.markSeen(seen, 64);
                    in.next();
                    f.spreadByDefault = readOwnerKinds(in);
                }
                default -> in.skipFieldValue();
            }
        }
    }

    private static void readAnnotations(JsonInput in, Fields f) throws IOException {
        if (!in.objectOrNull("an object of strings")) {
            return;
        }
        while (in.nextField()) {
            String key = in.fieldName();
            boolean keep = GangMembership.isRelevant(key) || key.startsWith(WirePod.MUSTER_ANNOTATION_PREFIX);
            in.next();
            JsonToken t = in.current();
            if (t != JsonToken.VALUE_STRING && t != JsonToken.VALUE_NULL) {
                throw in.typeError("a string", t);
            }
            if (!keep) {
                continue;
            }
            String value = in.stringOrNull();
            if (f.annotations == null) {
                f.annotations = new LinkedHashMap<>(4);
            } else if (f.annotations.containsKey(key)) {
                throw in.error("duplicate key \"" + JsonInput.abbreviate(key) + "\"");
            }
            f.annotations.put(key, value == null ? "" : value);
        }
    }

    /** Only the gang label ({@link GangMembership#isRelevantLabel}) is kept. */
    private static void readLabels(JsonInput in, Fields f) throws IOException {
        if (!in.objectOrNull("an object of strings")) {
            return;
        }
        while (in.nextField()) {
            String key = in.fieldName();
            in.next();
            JsonToken t = in.current();
            if (t != JsonToken.VALUE_STRING && t != JsonToken.VALUE_NULL) {
                throw in.typeError("a string", t);
            }
            if (GangMembership.isRelevantLabel(key)) {
                if (f.labels != null) {
                    throw in.error("duplicate key \"" + JsonInput.abbreviate(key) + "\"");
                }
                String value = in.stringOrNull();
                f.labels = Map.of(key, value == null ? "" : value);
            }
        }
    }

    /** {@code spec.schedulingGroup}: only {@code podGroupName} is read. */
    private static void readSchedulingGroup(JsonInput in, Fields f) throws IOException {
        if (!in.objectOrNull("an object")) {
            return;
        }
        int seen = 0;
        while (in.nextField()) {
            if ("podGroupName".equals(in.fieldName())) {
                seen = in.markSeen(seen, 1);
                in.next();
                f.schedulingGroup = in.stringOrNull();
            } else {
                in.skipFieldValue();
            }
        }
    }

    private static void readSpec(JsonInput in, Fields f) throws IOException {
        if (!in.objectOrNull("an object")) {
            return;
        }
        int seen = 0;
        while (in.nextField()) {
            switch (in.fieldName()) {
                case "containers" -> {
                    seen = in.markSeen(seen, 1);
                    in.next();
                    f.containers = ContainerReader.readContainers(in, false, marked -> f.gangMarked |= marked);
                }
                case "initContainers" -> {
                    seen = in.markSeen(seen, 2);
                    in.next();
                    f.initContainers = ContainerReader.readContainers(in, true, marked -> f.gangMarked |= marked);
                }
                case "resources" -> {
                    seen = in.markSeen(seen, 4);
                    in.next();
                    f.podLevelRequests = ContainerReader.readRequestsOf(in);
                }
                case "overhead" -> {
                    seen = in.markSeen(seen, 8);
                    in.next();
                    f.overhead = ResourceListReader.read(in, "overhead");
                }
                case "priority" -> {
                    seen = in.markSeen(seen, 16);
                    in.next();
                    f.priority = in.int32OrNull(0);
                }
                case "schedulerName" -> {
                    seen = in.markSeen(seen, 32);
                    in.next();
                    f.schedulerName = in.stringOrNull();
                }
                case "nodeName" -> {
                    seen = in.markSeen(seen, 64);
                    in.next();
                    f.nodeName = in.stringOrNull();
                }
                case "schedulingGroup" -> {
                    seen = in.markSeen(seen, 128);
                    in.next();
                    readSchedulingGroup(in, f);
                }
                case "affinity" -> {
                    seen = in.markSeen(seen, 256);
                    in.next();
                    f.scoredAffinity = readAffinity(in);
                }
                case "topologySpreadConstraints" -> {
                    seen = in.markSeen(seen, 512);
                    in.next();
                    readSpreadConstraints(in, f);
                }
                case "preemptionPolicy" -> {
                    seen = in.markSeen(seen, 1024);
                    in.next();
                    f.preemptionPolicy = in.stringOrNull();
                }
                case "terminationGracePeriodSeconds" -> {
                    seen = in.markSeen(seen, 2048);
                    in.next();
                    f.graceSeconds = in.current() == JsonToken.VALUE_NULL ? null : in.int64OrNull(0);
                }
                default -> in.skipFieldValue();
            }
        }
    }

    /** Owner kinds whose pods kube-scheduler spreads by default (its system default topology spread constraints). */
    private static final java.util.Set<String> SPREAD_OWNER_KINDS = java.util.Set.of("ReplicaSet", "StatefulSet", "ReplicationController");

    /** {@code metadata.ownerReferences}: true when an owner's kind is one kube-scheduler spreads by default. */
    private static boolean readOwnerKinds(JsonInput in) throws IOException {
        boolean[] spread = {false};
        forEachObject(in, "owner reference", "kind", kind -> spread[0] |= kind != null && SPREAD_OWNER_KINDS.contains(kind));
        return spread[0];
    }

    /**
     * On an array of objects (or null): calls {@code each} once per object with the string value of its {@code field}
     * (null when absent or null), skipping every other field.
     */
    private static void forEachObject(JsonInput in, String what, String field, java.util.function.Consumer<String> each) throws IOException {
        if (!in.arrayOrNull("an array of " + what + "s")) {
            return;
        }
        while (in.nextElement()) {
            if (!in.objectOrNull("a " + what + " object")) {
                continue;
            }
            String value = null;
            while (in.nextField()) {
                if (field.equals(in.fieldName())) {
                    in.next();
                    value = in.stringOrNull();
                } else {
                    in.skipFieldValue();
                }
            }
            each.accept(value);
        }
    }

    /**
     * {@code spec.affinity}: true when it holds anything kube-scheduler's score plugins weigh — preferred node affinity
     * terms, or pod affinity or anti-affinity of any kind (required terms are scored too). Required node affinity is a
     * filter only: kube-scheduler has applied it to the candidates already.
     */
    private static boolean readAffinity(JsonInput in) throws IOException {
        if (!in.objectOrNull("an object")) {
            return false;
        }
        boolean scored = false;
        while (in.nextField()) {
            switch (in.fieldName()) {
                case "nodeAffinity" -> {
                    in.next();
                    scored |= readNodeAffinity(in);
                }
                case "podAffinity", "podAntiAffinity" -> {
                    in.next();
                    scored |= in.objectOrNull("an object") && nonEmptyObject(in);
                }
                default -> in.skipFieldValue();
            }
        }
        return scored;
    }

    private static boolean readNodeAffinity(JsonInput in) throws IOException {
        if (!in.objectOrNull("an object")) {
            return false;
        }
        boolean preferred = false;
        while (in.nextField()) {
            if ("preferredDuringSchedulingIgnoredDuringExecution".equals(in.fieldName())) {
                in.next();
                preferred |= in.arrayOrNull("an array of preferred terms") && nonEmptyArray(in);
            } else {
                in.skipFieldValue();
            }
        }
        return preferred;
    }

    /** {@code spec.topologySpreadConstraints}: whether there are any, and whether one is {@code ScheduleAnyway} (scored). */
    private static void readSpreadConstraints(JsonInput in, Fields f) throws IOException {
        forEachObject(in, "topology spread constraint", "whenUnsatisfiable", when -> {
            f.hasSpreadConstraints = true;
            f.scoredSpread |= "ScheduleAnyway".equals(when);
        });
    }

    /** On START_OBJECT: whether it has a field; consumes the object. */
    private static boolean nonEmptyObject(JsonInput in) throws IOException {
        boolean any = false;
        while (in.nextField()) {
            any = true;
            in.skipFieldValue();
        }
        return any;
    }

    /** On START_ARRAY: whether it has an element; consumes the array. */
    private static boolean nonEmptyArray(JsonInput in) throws IOException {
        boolean any = false;
        while (in.nextElement()) {
            any = true;
            in.skipValue();
        }
        return any;
    }

    private static void readStatus(JsonInput in, Fields f) throws IOException {
        if (!in.objectOrNull("an object")) {
            return;
        }
        int seen = 0;
        while (in.nextField()) {
            if ("phase".equals(in.fieldName())) {
                seen = in.markSeen(seen, 1);
                in.next();
                f.phase = in.stringOrNull();
            } else if ("nominatedNodeName".equals(in.fieldName())) {
                seen = in.markSeen(seen, 2);
                in.next();
                f.nominatedNodeName = in.stringOrNull();
            } else {
                in.skipFieldValue();
            }
        }
    }

    /** What has been read so far of one pod. */
    private static final class Fields {
        String name;
        String namespace;
        String uid;
        String resourceVersion;
        Map<String, String> annotations;
        Map<String, String> labels;
        String schedulingGroup;
        List<PodRequests.Container> containers = List.of();
        List<PodRequests.Container> initContainers = List.of();
        Resources podLevelRequests = Resources.ZERO;
        Resources overhead = Resources.ZERO;
        int priority;
        String schedulerName;
        String nodeName;
        String phase;
        String nominatedNodeName;
        String preemptionPolicy;
        Long graceSeconds;
        boolean spreadByDefault; // owned by a kind kube-scheduler spreads by default
        boolean scoredAffinity;
        boolean hasSpreadConstraints;
        boolean scoredSpread;
        boolean gangMarked; // a container requests ResourceNames.GANG_MARKER

        /** Called with the parser just past the pod object, so errors name the pod's path. */
        WirePod build(JsonInput in) {
            require(in, uid, "metadata.uid");
            require(in, namespace, "metadata.namespace");
            require(in, name, "metadata.name");
            Map<String, String> kept = annotations == null ? Map.of() : annotations;
            Resources request = PodRequests.effective(containers, initContainers, podLevelRequests, overhead);
            GangMembership.Membership membership = GangMembership.membershipOf(namespace, kept, labels, schedulingGroup);
            Pod pod = new Pod(new PodId(uid, namespace, name), resourceVersion, request, membership.gang(),
                    GangMembership.taskOf(kept), priority, nodeName == null || nodeName.isEmpty() ? null : nodeName,
                    PodPhase.parse(phase), membership.conflict());
            pod = PodConverter.withPreemption(pod, preemptionPolicy, graceSeconds).withNomination(nominatedNodeName);
            boolean soft = scoredAffinity || scoredSpread || (spreadByDefault && !hasSpreadConstraints);
            return new WirePod(pod, schedulerName, kept, soft, gangMarked);
        }

        private static void require(JsonInput in, String value, String field) {
            if (value == null || value.isEmpty()) {
                throw in.error("pod has no " + field);
            }
        }
    }
}
