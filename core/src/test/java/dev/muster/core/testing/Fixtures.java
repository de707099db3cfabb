package dev.muster.core.testing;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.resources.Quantities;
import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Small fluent builders for tests (shared with other modules through the core test-jar). */
public final class Fixtures {
    private static final AtomicLong UIDS = new AtomicLong();

    private Fixtures() {}

    /** Resources from a compact spec: {@code res("4", "16Gi")} or {@code res("4", "16Gi", "nvidia.com/gpu", "1")}. */
    public static Resources res(String cpu, String memory, String... extended) {
        Resources.Builder b = Resources.builder();
        if (cpu != null) {
            b.set("cpu", Quantities.parse("cpu", cpu));
        }
        if (memory != null) {
            b.set("memory", Quantities.parse("memory", memory));
        }
        for (int i = 0; i + 1 < extended.length; i += 2) {
            b.set(extended[i], Quantities.parse(extended[i], extended[i + 1]));
        }
        return b.build();
    }

    /** A pod request: like {@link #res} plus 1 pod. */
    public static Resources req(String cpu, String memory, String... extended) {
        return res(cpu, memory, extended).plus(Resources.builder().set("pods", 1).build());
    }

    public static Node node(String name, String cpu, String memory, String... extended) {
        return Node.of(name, res(cpu, memory, extended).plus(Resources.builder().set("pods", 110).build()));
    }

    public static PodBuilder pod(String name) {
        return new PodBuilder(name);
    }

    public static PodGroupSpec podGroup(String ns, String name, int minMember, String queue) {
        return PodGroupSpec.of(new GangKey(ns, name), minMember, queue);
    }

    public static PodGroupSpec podGroup(String ns, String name, int minMember, String queue, Map<String, Integer> minTaskMember) {
        return new PodGroupSpec(new GangKey(ns, name), minMember, minTaskMember, Resources.ZERO, queue, "", null);
    }

    public static PodGroupSpec podGroup(String ns, String name, int minMember, String queue, Duration deadline) {
        return new PodGroupSpec(new GangKey(ns, name), minMember, Map.of(), Resources.ZERO, queue, "", deadline);
    }

    /** A PodGroup of the Kubernetes API whose disruption mode is {@code all}: preemption takes it whole or not at all. */
    public static PodGroupSpec podGroupGoingWhole(String ns, String name, int minMember, String queue) {
        return new PodGroupSpec(new GangKey(ns, name), minMember, Map.of(), Resources.ZERO, queue, "", null, dev.muster.core.model.GangApi.KUBERNETES,
                null, "", new dev.muster.core.model.PreemptionTerms(null, dev.muster.core.model.PreemptionPolicy.PREEMPT_LOWER_PRIORITY,
                dev.muster.core.model.DisruptionMode.ALL));
    }

    public static QueueSpec queue(String name) {
        return QueueSpec.open(name, null);
    }

    public static QueueSpec queue(String name, Resources capability) {
        return QueueSpec.open(name, capability);
    }

    /** Fluent pod builder. */
    public static final class PodBuilder {
        private final String name;
        private String namespace = "default";
        private String uid;
        private Resources request = req("1", "1Gi");
        private GangKey gang;
        private String task = "";
        private String node;
        private PodPhase phase = PodPhase.PENDING;
        private int priority;
        private String resourceVersion = "1";
        private dev.muster.core.model.NodeConstraints constraints = dev.muster.core.model.NodeConstraints.NONE;

        PodBuilder(String name) {
            this.name = name;
            this.uid = name + "-uid-" + UIDS.incrementAndGet();
        }

        public PodBuilder ns(String ns) {
            this.namespace = ns;
            return this;
        }

        public PodBuilder uid(String u) {
            this.uid = u;
            return this;
        }

        public PodBuilder requests(String cpu, String memory, String... extended) {
            this.request = req(cpu, memory, extended);
            return this;
        }

        public PodBuilder request(Resources r) {
            this.request = r;
            return this;
        }

        public PodBuilder gang(String pg) {
            this.gang = new GangKey(namespace, pg);
            return this;
        }

        public PodBuilder task(String t) {
            this.task = t;
            return this;
        }

        public PodBuilder on(String nodeName) {
            this.node = nodeName;
            this.phase = PodPhase.RUNNING;
            return this;
        }

        public PodBuilder phase(PodPhase p) {
            this.phase = p;
            return this;
        }

        public PodBuilder priority(int p) {
            this.priority = p;
            return this;
        }

        public PodBuilder resourceVersion(String rv) {
            this.resourceVersion = rv;
            return this;
        }

        /** Its node selector, required node affinity, tolerations and scheduling gates. */
        public PodBuilder constraints(dev.muster.core.model.NodeConstraints c) {
            this.constraints = c;
            return this;
        }

        public Pod build() {
            Pod p = new Pod(new PodId(uid, namespace, name), resourceVersion, request, gang, task, priority, node, phase);
            return constraints == dev.muster.core.model.NodeConstraints.NONE ? p : p.withConstraints(constraints);
        }
    }
}
