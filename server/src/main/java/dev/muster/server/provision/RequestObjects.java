package dev.muster.server.provision;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.muster.core.model.GangKey;
import dev.muster.core.provision.Provisioning;
import dev.muster.core.provision.RequestStatus;
import dev.muster.core.resources.ResourceNames;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodTemplate;
import io.kubernetes.client.openapi.models.V1PodTemplateSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The objects of a gang's request, made from its pods, and what a request's status says. No API calls: pure functions.
 *
 * <p>One PodTemplate per distinct pod shape, in the gang's namespace, named {@code <request>-<i>}, labelled
 * {@value #MANAGED_BY}={@value #MUSTER} and {@value #REQUEST_LABEL}=the request (so deleting the request deletes them,
 * and a restarted extender finds them). A template is the member's pod spec as an autoscaler must simulate it: without
 * the node it may have been given, Muster's scheduling gates, per-pod hostnames, the ServiceAccount token volume the API
 * server names anew in every pod (the autoscaler's pod gets its own) and Muster's {@code muster.dev/gang} marker resource
 * (which no node offers); its labels are those all pods of the shape share. The ProvisioningRequest
 * names each template with its pod count, the class and parameters from the flags, is labelled
 * {@value #MANAGED_BY}={@value #MUSTER} and names its PodGroup in the annotation {@value #PODGROUP_ANNOTATION}.
 */
public final class RequestObjects {
    public static final String GROUP = "autoscaling.x-k8s.io";
    public static final String VERSION = "v1";
    public static final String API_VERSION = GROUP + "/" + VERSION;
    public static final String PLURAL = "provisioningrequests";
    public static final String KIND = "ProvisioningRequest";
    public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
    public static final String MUSTER = "muster";
    public static final String PODGROUP_ANNOTATION = "muster.dev/podgroup";
    public static final String REQUEST_LABEL = "muster.dev/provisioning-request";
    /** The ProvisioningRequest API's limit on {@code spec.podSets}. */
    public static final int MAX_POD_SETS = 32;
    /** The gates Muster may have put on its pods (they are not part of what an autoscaler simulates). */
    private static final String MUSTER_GATE_PREFIX = "muster.dev/";
    /** The projected ServiceAccount token volume the API server adds to each pod (its name differs from pod to pod). */
    private static final String TOKEN_VOLUME_PREFIX = "kube-api-access-";

    private RequestObjects() {}

    /** One PodTemplate and how many of the gang's pods have its shape. */
    public record Shape(V1PodTemplate template, int count) {}

    /**
     * The templates of request {@code request} for {@code pods} (the gang's waiting pods), one per distinct shape.
     *
     * @throws IllegalArgumentException when there are no pods, or more shapes than a request may name
     */
    public static List<Shape> shapes(String request, GangKey gang, List<V1Pod> pods) {
        if (pods.isEmpty()) {
            throw new IllegalArgumentException("gang " + gang + " has no waiting pod to make a PodTemplate from");
        }
        Map<String, List<V1Pod>> byShape = new LinkedHashMap<>();
        Map<String, V1PodSpec> specs = new HashMap<>();
        for (V1Pod p : pods) {
            V1PodSpec spec = simulated(p.getSpec());
            String key = JSON.serialize(spec);
            byShape.computeIfAbsent(key, k -> new ArrayList<>()).add(p);
            specs.putIfAbsent(key, spec);
        }
        if (byShape.size() > MAX_POD_SETS) {
            throw new IllegalArgumentException("gang " + gang + "'s pods have " + byShape.size() + " distinct shapes; a ProvisioningRequest names at most "
                    + MAX_POD_SETS);
        }
        List<Shape> out = new ArrayList<>();
        int i = 0;
        for (Map.Entry<String, List<V1Pod>> e : byShape.entrySet()) {
            V1PodTemplate t = new V1PodTemplate().apiVersion("v1").kind("PodTemplate")
                    .metadata(new V1ObjectMeta().name(request + "-" + i++).namespace(gang.namespace())
                            .labels(Map.of(MANAGED_BY, MUSTER, REQUEST_LABEL, labelValue(request)))
                            .annotations(Map.of(PODGROUP_ANNOTATION, gang.name())))
                    .template(new V1PodTemplateSpec().metadata(new V1ObjectMeta().labels(sharedLabels(e.getValue()))).spec(specs.get(e.getKey())));
            out.add(new Shape(t, e.getValue().size()));
        }
        return out;
    }

    /** The ProvisioningRequest {@code name} of {@code gang} for {@code shapes}. */
    public static ProvisioningRequestObject request(String name, GangKey gang, Provisioning.Settings settings, List<Shape> shapes) {
        ProvisioningRequestObject o = new ProvisioningRequestObject();
        o.setApiVersion(API_VERSION);
        o.setKind(KIND);
        o.setMetadata(new V1ObjectMeta().name(name).namespace(gang.namespace()).labels(Map.of(MANAGED_BY, MUSTER))
                .annotations(Map.of(PODGROUP_ANNOTATION, gang.name())));
        JsonObject spec = new JsonObject();
        spec.addProperty("provisioningClassName", settings.className());
        if (!settings.parameters().isEmpty()) {
            JsonObject params = new JsonObject();
            new TreeMap<>(settings.parameters()).forEach(params::addProperty);
            spec.add("parameters", params);
        }
        JsonArray podSets = new JsonArray();
        for (Shape s : shapes) {
            JsonObject set = new JsonObject();
            JsonObject ref = new JsonObject();
            ref.addProperty("name", s.template().getMetadata().getName());
            set.add("podTemplateRef", ref);
            set.addProperty("count", s.count());
            podSets.add(set);
        }
        spec.add("podSets", podSets);
        o.setSpec(spec);
        return o;
    }

    /** The gang a request of Muster's is for, or null when it is not Muster's (no label or no annotation). */
    public static GangKey gangOf(ProvisioningRequestObject o) {
        V1ObjectMeta m = o.getMetadata();
        if (m == null || m.getLabels() == null || !MUSTER.equals(m.getLabels().get(MANAGED_BY)) || m.getAnnotations() == null) {
            return null;
        }
        String pg = m.getAnnotations().get(PODGROUP_ANNOTATION);
        return pg == null || pg.isEmpty() ? null : new GangKey(m.getNamespace(), pg);
    }

    /** What the request's {@code status.conditions} say ({@code True} conditions only; unreadable ones are ignored). */
    public static RequestStatus status(ProvisioningRequestObject o) {
        JsonObject status = o.getStatus();
        JsonElement conds = status == null ? null : status.get("conditions");
        if (conds == null || !conds.isJsonArray()) {
            return RequestStatus.NEW;
        }
        Map<String, JsonObject> trueOnes = new HashMap<>();
        for (JsonElement c : conds.getAsJsonArray()) {
            if (c.isJsonObject() && "True".equals(text(c.getAsJsonObject(), "status"))) {
                trueOnes.put(text(c.getAsJsonObject(), "type"), c.getAsJsonObject());
            }
        }
        JsonObject deciding = trueOnes.getOrDefault("Failed", trueOnes.getOrDefault("CapacityRevoked", trueOnes.get("BookingExpired")));
        return new RequestStatus(trueOnes.containsKey("Accepted"), trueOnes.containsKey("Provisioned"), trueOnes.containsKey("Failed"),
                trueOnes.containsKey("BookingExpired"), trueOnes.containsKey("CapacityRevoked"),
                deciding == null ? "" : text(deciding, "reason"), deciding == null ? "" : text(deciding, "message"));
    }

    /** A label value for the request {@code name}: the name itself when it fits 63 characters, else a digest of it. */
    public static String labelValue(String name) {
        if (name.length() <= 63) {
            return name;
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return "h-" + HexFormat.of().formatHex(d).substring(0, 60);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The pod spec as an autoscaler simulates it (a copy: the pod is not changed). */
    static V1PodSpec simulated(V1PodSpec spec) {
        V1PodSpec s = JSON.deserialize(JSON.serialize(spec), V1PodSpec.class);
        s.setNodeName(null);
        s.setHostname(null);
        if (s.getSchedulingGates() != null) {
            s.setSchedulingGates(s.getSchedulingGates().stream().filter(g -> !g.getName().startsWith(MUSTER_GATE_PREFIX)).toList());
            if (s.getSchedulingGates().isEmpty()) {
                s.setSchedulingGates(null);
            }
        }
        // the ServiceAccount token volume the API server adds has a name of its own in every pod
        if (s.getVolumes() != null) {
            s.setVolumes(s.getVolumes().stream().filter(v -> !v.getName().startsWith(TOKEN_VOLUME_PREFIX)).toList());
        }
        for (List<V1Container> cs : java.util.Arrays.asList(s.getContainers(), s.getInitContainers())) {
            for (V1Container c : cs == null ? List.<V1Container>of() : cs) {
                if (c.getVolumeMounts() != null) {
                    c.setVolumeMounts(c.getVolumeMounts().stream().filter(m -> !m.getName().startsWith(TOKEN_VOLUME_PREFIX)).toList());
                }
                V1ResourceRequirements r = c.getResources();
                if (r != null) {
                    if (r.getRequests() != null) {
                        r.getRequests().remove(ResourceNames.GANG_MARKER);
                    }
                    if (r.getLimits() != null) {
                        r.getLimits().remove(ResourceNames.GANG_MARKER);
                    }
                }
            }
        }
        return s;
    }

    private static Map<String, String> sharedLabels(List<V1Pod> pods) {
        Map<String, String> shared = null;
        for (V1Pod p : pods) {
            Map<String, String> l = p.getMetadata() == null || p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
            if (shared == null) {
                shared = new TreeMap<>(l);
            } else {
                shared.entrySet().removeIf(e -> !e.getValue().equals(l.get(e.getKey())));
            }
        }
        return shared == null ? Map.of() : shared;
    }

    private static String text(JsonObject o, String field) {
        JsonElement e = o.get(field);
        return e == null || !e.isJsonPrimitive() ? "" : e.getAsString();
    }
}
