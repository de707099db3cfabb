package dev.muster.bench;

import dev.muster.e2e.Kube;
import dev.muster.e2e.Workloads;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The soak's demand, drawn from a seeded {@link Random}: gangs (an Indexed Job of 250m pods joined to a Volcano PodGroup of
 * minMember 2–4, a quarter with one member of surplus, a quarter under a PodDisruptionBudget that allows only the
 * surplus to go) and single pods (a Deployment of 1–3 pods of 250m under a {@code maxUnavailable: 1} budget), each in one of
 * three queues, of one of three priorities, and pinned to a node pool by {@code nodeSelector} or free to go anywhere.
 * Jobs have far more completions than pods at once, so that the Job controller makes the pods of an evicted gang again
 * (a hollow kubelet's pod exits 0 when stopped). Used by the driver thread only; {@link #gangs()} is read by the sampler.
 */
final class SoakWorkloads {
    /** The label key of the node pools. */
    static final String POOL = "muster.dev/soak-pool";
    static final List<String> POOLS = List.of("a", "b");
    static final List<String> QUEUES = List.of("soak-a", "soak-b", "soak-c");
    /** PriorityClass name → value. */
    static final Map<String, Integer> PRIORITIES = Map.of("soak-low", 10, "soak-mid", 100, "soak-high", 1000);
    private static final List<String> PRIORITY_NAMES = List.of("soak-low", "soak-mid", "soak-high");

    /** A live gang: its Job's pods carry {@code job=<name>}; {@code minMember} of them make it run. */
    record Gang(String name, int minMember) {}

    private final Kube admin;
    private final Workloads workloads;
    private final String ns;
    private final Random random;
    private final List<String> live = new ArrayList<>(); // "job/<name>" or "deployment/<name>"
    private final Map<String, Gang> gangs = new ConcurrentHashMap<>();
    private int made;
    private int stopped;

    SoakWorkloads(Kube admin, Workloads workloads, String ns, long seed) {
        this.admin = admin;
        this.workloads = workloads;
        this.ns = ns;
        this.random = new Random(seed);
    }

    /** The queues (weight 1 each, reclaimable) and PriorityClasses the workloads use. */
    void prepare() {
        for (String q : QUEUES) {
            admin.queue(q, Map.of("weight", 1));
        }
        PRIORITIES.forEach((name, value) -> workloads.priorityClass(name, value, "PreemptLowerPriority"));
    }

    /** One step of demand: sometimes stops a live workload, then makes one while fewer than {@code maxLive} live. */
    void step(int maxLive) {
        if (!live.isEmpty() && (live.size() >= maxLive || random.nextDouble() < 0.3)) {
            stop(live.remove(random.nextInt(live.size())));
        }
        if (live.size() < maxLive) {
            if (random.nextDouble() < 0.65) {
                gang();
            } else {
                singles();
            }
        }
    }

    /** Gangs the sampler judges: those whose Job still exists. */
    Map<String, Gang> gangs() {
        return gangs;
    }

    int made() {
        return made;
    }

    int stopped() {
        return stopped;
    }

    private void gang() {
        String name = "g-" + (++made);
        int min = 2 + random.nextInt(3);
        int pods = random.nextDouble() < 0.25 ? min + 1 : min;
        String queue = QUEUES.get(random.nextInt(QUEUES.size()));
        admin.podGroup(ns, name, min, queue, Map.of());
        if (random.nextDouble() < 0.25) {
            workloads.podDisruptionBudget(ns, name, Map.of("job", name), min); // only a surplus member may go
        }
        workloads.indexedJob(ns, name, pods, 1_000, template(name), false, pinned());
        gangs.put(name, new Gang(name, min));
        live.add("job/" + name);
    }

    private void singles() {
        String name = "d-" + (++made);
        workloads.deployment(ns, name, 1 + random.nextInt(3), template(null), pinned());
        workloads.podDisruptionBudgetMaxUnavailable(ns, name, Map.of("app", name), 1);
        live.add("deployment/" + name);
    }

    private Workloads.PodTemplate template(String podGroup) {
        return new Workloads.PodTemplate(podGroup, "250m", "64Mi", 1,
                PRIORITY_NAMES.get(random.nextInt(PRIORITY_NAMES.size())));
    }

    /** A nodeSelector for one pool (two thirds of the workloads), or none. */
    private Map<String, Object> pinned() {
        int pool = random.nextInt(POOLS.size() + 1);
        return pool == POOLS.size() ? Map.of() : Map.of("nodeSelector", Map.of(POOL, POOLS.get(pool)));
    }

    /** Ends a workload's demand: a Job is deleted with its pods (no longer judged), a Deployment scaled to 0. */
    private void stop(String workload) {
        String name = workload.substring(workload.indexOf('/') + 1);
        if (workload.startsWith("job/")) {
            gangs.remove(name);
            workloads.deleteJob(ns, name, "Background");
        } else {
            workloads.scale(ns, name, 0);
        }
        stopped++;
    }
}
