package dev.muster.common.kube;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.muster.core.resources.Quantities;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.kubernetes.client.openapi.models.V1NodeStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.util.LinkedHashMap;
import java.util.Map;

/** Fluent builders for the client-java objects the adapters read. Test support; not thread-safe. */
public final class KubeObjects {
    private KubeObjects() {}

    public static PodBuilder pod(String namespace, String name) {
        return new PodBuilder(namespace, name);
    }

    public static NodeBuilder node(String name) {
        return new NodeBuilder(name);
    }

    /** {@code "cpu=500m,memory=1Gi"} → Resources, parsed by the core parser. */
    public static Resources res(String spec) {
        Resources.Builder b = Resources.builder();
        for (String part : spec.split(",")) {
            String[] kv = part.trim().split("=", 2);
            b.set(kv[0], Quantities.parse(kv[0], kv[1]));
        }
        return b.build();
    }

    /** {@code "cpu=500m,memory=1Gi"} → a quantity map. */
    public static Map<String, Quantity> quantities(String spec) {
        Map<String, Quantity> m = new LinkedHashMap<>();
        if (spec == null || spec.isBlank()) {
            return m;
        }
        for (String part : spec.split(",")) {
            String[] kv = part.trim().split("=", 2);
            m.put(kv[0], new Quantity(kv[1]));
        }
        return m;
    }

    public static VolcanoPodGroup podGroup(String namespace, String name, String specJson) {
        VolcanoPodGroup pg = new VolcanoPodGroup();
        pg.setMetadata(new V1ObjectMeta().namespace(namespace).name(name).uid("pg-" + namespace + "-" + name));
        pg.setSpec(json(specJson));
        return pg;
    }

    /** A Kubernetes or scheduler-plugins PodGroup with this spec (JSON, may be null). */
    /** A PodGroup of {@code pg}'s API; a Kubernetes one without an apiVersion is {@value #K8S_V1ALPHA2} (as 1.36 serves it). */
    public static <T extends RawCustomObject> T podGroup(T pg, String namespace, String name, String specJson) {
        pg.setMetadata(new V1ObjectMeta().namespace(namespace).name(name).uid("pg-" + namespace + "-" + name));
        pg.setSpec(json(specJson));
        if (pg instanceof KubePodGroup && pg.getApiVersion() == null) {
            pg.setApiVersion(K8S_V1ALPHA2);
        }
        return pg;
    }

    public static final String K8S_V1ALPHA2 = "scheduling.k8s.io/v1alpha2";
    public static final String K8S_V1BETA1 = "scheduling.k8s.io/v1beta1";

    /** A golden object of {@code src/test/resources/kubernetes-podgroups} (see its README), as text. */
    public static String golden(String file) {
        try (var in = KubeObjects.class.getResourceAsStream("/kubernetes-podgroups/" + file)) {
            if (in == null) {
                throw new IllegalArgumentException("no golden file " + file);
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A golden object decoded the way the informers decode it (client-java's Gson, by class). */
    public static <T> T golden(String file, Class<T> type) {
        new io.kubernetes.client.openapi.JSON(); // installs client-java's Gson
        return io.kubernetes.client.openapi.JSON.deserialize(golden(file), type);
    }

    /** A Kubernetes PodGroup as {@code apiVersion} spells it. */
    public static KubePodGroup kubePodGroup(String apiVersion, String namespace, String name, String specJson) {
        KubePodGroup pg = new KubePodGroup();
        pg.setApiVersion(apiVersion);
        return podGroup(pg, namespace, name, specJson);
    }

    public static VolcanoQueue queue(String name, String specJson, String statusJson) {
        VolcanoQueue q = new VolcanoQueue();
        q.setMetadata(new V1ObjectMeta().name(name).uid("queue-" + name));
        q.setSpec(json(specJson));
        q.setStatus(json(statusJson));
        return q;
    }

    public static JsonObject json(String text) {
        return text == null ? null : JsonParser.parseString(text).getAsJsonObject();
    }

    public static final class PodBuilder {
        private final V1Pod pod = new V1Pod();
        private final V1PodSpec spec = new V1PodSpec();

        PodBuilder(String namespace, String name) {
            pod.metadata(new V1ObjectMeta().namespace(namespace).name(name).uid(namespace + "-" + name + "-uid").resourceVersion("1"));
            pod.spec(spec);
            pod.status(new V1PodStatus().phase("Pending"));
        }

        public PodBuilder uid(String uid) {
            pod.getMetadata().uid(uid);
            return this;
        }

        public PodBuilder resourceVersion(String rv) {
            pod.getMetadata().resourceVersion(rv);
            return this;
        }

        public PodBuilder container(String name, String requests) {
            spec.addContainersItem(new V1Container().name(name).resources(new V1ResourceRequirements().requests(quantities(requests))));
            return this;
        }

        public PodBuilder initContainer(String name, String requests) {
            spec.addInitContainersItem(new V1Container().name(name).resources(new V1ResourceRequirements().requests(quantities(requests))));
            return this;
        }

        public PodBuilder sidecar(String name, String requests) {
            spec.addInitContainersItem(new V1Container().name(name).restartPolicy("Always")
                    .resources(new V1ResourceRequirements().requests(quantities(requests))));
            return this;
        }

        public PodBuilder overhead(String requests) {
            spec.overhead(quantities(requests));
            return this;
        }

        public PodBuilder podResources(String requests) {
            spec.resources(new V1ResourceRequirements().requests(quantities(requests)));
            return this;
        }

        public PodBuilder annotation(String key, String value) {
            pod.getMetadata().putAnnotationsItem(key, value);
            return this;
        }

        public PodBuilder label(String key, String value) {
            pod.getMetadata().putLabelsItem(key, value);
            return this;
        }

        /** {@code spec.schedulingGroup.podGroupName}: joins a Kubernetes PodGroup. */
        public PodBuilder schedulingGroup(String podGroup) {
            spec.schedulingGroup(new io.kubernetes.client.openapi.models.V1PodSchedulingGroup().podGroupName(podGroup));
            return this;
        }

        public PodBuilder gang(String podGroup) {
            return annotation("scheduling.k8s.io/group-name", podGroup);
        }

        public PodBuilder node(String nodeName) {
            spec.nodeName(nodeName);
            return this;
        }

        public PodBuilder phase(String phase) {
            pod.getStatus().phase(phase);
            return this;
        }

        public PodBuilder priority(int priority) {
            spec.priority(priority);
            return this;
        }

        public PodBuilder schedulerName(String name) {
            spec.schedulerName(name);
            return this;
        }

        public V1Pod build() {
            return pod;
        }
    }

    public static final class NodeBuilder {
        private final V1Node node = new V1Node();

        NodeBuilder(String name) {
            node.metadata(new V1ObjectMeta().name(name).uid("node-" + name).resourceVersion("1"));
            node.status(new V1NodeStatus());
            node.spec(new V1NodeSpec());
        }

        public NodeBuilder allocatable(String quantities) {
            node.getStatus().allocatable(KubeObjects.quantities(quantities));
            return this;
        }

        public NodeBuilder capacity(String quantities) {
            node.getStatus().capacity(KubeObjects.quantities(quantities));
            return this;
        }

        public NodeBuilder unschedulable(boolean unschedulable) {
            node.getSpec().unschedulable(unschedulable);
            return this;
        }

        public NodeBuilder resourceVersion(String rv) {
            node.getMetadata().resourceVersion(rv);
            return this;
        }

        public V1Node build() {
            return node;
        }
    }
}
