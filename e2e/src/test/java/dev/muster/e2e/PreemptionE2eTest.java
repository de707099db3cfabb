package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.WhatWouldItTakeRequest;
import dev.muster.proto.v1.WhatWouldItTakeResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Gang-aware preemption on hollow kubelets with kube-controller-manager: Jobs whose pods join Volcano PodGroups fill the
 * four 1-cpu nodes (four 250m pods each), a gang of higher priority arrives, and Muster evicts (policy/v1 Eviction)
 * exactly what it needs, whole gangs only; the kubelets really terminate the victims and the preemptor runs whole.
 */
class PreemptionE2eTest extends ControllersClusterTest {
    static final String LOW = "muster-e2e-low";
    static final String HIGH = "muster-e2e-high";
    static final String HIGH_NEVER = "muster-e2e-high-never";

    @BeforeEach
    void priorityClasses() {
        c.workloads.priorityClass(LOW, 10, "PreemptLowerPriority");
        c.workloads.priorityClass(HIGH, 1000, "PreemptLowerPriority");
        c.workloads.priorityClass(HIGH_NEVER, 1000, "Never");
    }

    private static Workloads.PodTemplate pods(String group, String priorityClass) {
        return new Workloads.PodTemplate(group, "250m", "64Mi", 1, priorityClass);
    }

    /** A Job of {@code n} pods joined to a PodGroup of minMember {@code n}. */
    private void gangJob(String name, int n, String priorityClass) {
        gangJob(name, n, n, priorityClass);
    }

    /** A Job of {@code n} pods at once and {@code completions} in all, joined to a PodGroup of minMember {@code n}. */
    private void gangJob(String name, int n, int completions, String priorityClass) {
        c.admin.podGroup(ns, name, n, queue, Map.of());
        c.workloads.indexedJob(ns, name, n, completions, pods(name, priorityClass), false);
    }

    /**
     * Two low-priority gangs of 8 fill the cluster, {@code low-b} started last. Each Job has 16 completions, so that a gang
     * evicted is made again (a hollow kubelet's pods exit 0 when stopped: the Job makes pods for the indexes left).
     */
    private Map<String, Set<String>> fillWithLowGangs() {
        gangJob("low-a", 8, 16, LOW);
        c.awaitRunning(ns, "job=low-a", 8);
        gangJob("low-b", 8, 16, LOW);
        c.awaitRunning(ns, "job=low-b", 8);
        return Map.of("low-a", c.uids(ns, "job=low-a"), "low-b", c.uids(ns, "job=low-b"));
    }

    /** Stops {@code sampler}; then exactly one low gang is evicted, whole, and the other untouched: returns the evicted one. */
    private String oneLowGangEvictedWhole(ScheduledExecutorService sampler, Map<String, Set<String>> low) throws InterruptedException {
        sampler.shutdown();
        assertThat(sampler.awaitTermination(30, TimeUnit.SECONDS)).as("the sampler stopped").isTrue();
        int a = c.survivors(ns, low.get("low-a")).size();
        int b = c.survivors(ns, low.get("low-b")).size();
        assertThat(List.of(a, b)).as("exactly one low gang evicted whole, the other untouched").containsExactlyInAnyOrder(0, 8);
        return a == 0 ? "low-a" : "low-b";
    }

    @Test
    void aHighPriorityGangEvictsExactlyOneWholeLowGangAndRunsWhole() throws InterruptedException {
        Map<String, Set<String>> low = fillWithLowGangs();
        Awaitility.await("both low PodGroups Running").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> "Running".equals(c.phase(ns, "low-a")) && "Running".equals(c.phase(ns, "low-b")));
        Map<String, Object> scheduledBefore = condition(c.admin.podGroupObject(ns, "low-b"), "Scheduled");
        assertThat(scheduledBefore).as("low-b Scheduled before the eviction").isNotNull().containsEntry("status", "True");
        // sampled while it happens: a low gang is ever only whole (8 of its first pods) or on its way out whole
        Map<String, Integer> fewest = new ConcurrentHashMap<>();
        Set<String> disruptionTargets = ConcurrentHashMap.newKeySet(); // victims seen with the DisruptionTarget condition
        Set<String> untruths = ConcurrentHashMap.newKeySet(); // what low-b's PodGroup said that was not so
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleWithFixedDelay(() -> {
            for (var e : low.entrySet()) {
                fewest.merge(e.getKey(), c.survivors(ns, e.getValue()).size(), Math::min);
            }
            for (V1Pod p : c.admin.pods(ns)) {
                if (p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
                        .anyMatch(cond -> "DisruptionTarget".equals(cond.getType()) && "True".equals(cond.getStatus()))) {
                    disruptionTargets.add(p.getMetadata().getUid());
                }
            }
            untruths.addAll(untruths(c.admin.podGroupObject(ns, "low-b"), scheduledBefore));
        }, 0, 100, TimeUnit.MILLISECONDS);
        long t0 = System.nanoTime();
        gangJob("big", 8, HIGH);
        c.awaitRunning(ns, "job=big", 8);
        System.out.printf("e2e: a priority-1000 gang of 8 Running on the room of an evicted gang %.1f s after its Job was created%n",
                (System.nanoTime() - t0) / 1e9);
        Awaitility.await("PodGroup big Running with 8").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> "Running".equals(c.phase(ns, "big")) && c.podGroupCount(ns, "big", "running") == 8);
        // the victim's Job makes its 8 pods again; they wait (no room), and so does its PodGroup, which the Queue counts so
        Awaitility.await("low-b's new pods made and waiting").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> c.admin.pods(ns, "job=low-b").stream().filter(p -> !low.get("low-b").contains(p.getMetadata().getUid())
                        && p.getSpec().getNodeName() == null && p.getMetadata().getDeletionTimestamp() == null).count() == 8);
        Awaitility.await("low-b's PodGroup and the Queue read waiting").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> List.of("Pending", "Inqueue").contains(c.phase(ns, "low-b"))
                        && c.queueCount(queue, "pending") + c.queueCount(queue, "inqueue") == 1 && c.queueCount(queue, "running") == 2
                        && c.queueCount(queue, "completed") == 0 && c.queueCount(queue, "unknown") == 0);
        Awaitility.await("and stay so").during(Duration.ofSeconds(5)).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(250))
                .until(() -> List.of("Pending", "Inqueue").contains(c.phase(ns, "low-b"))
                        && c.queueCount(queue, "pending") + c.queueCount(queue, "inqueue") == 1 && c.queueCount(queue, "completed") == 0);
        String victim = oneLowGangEvictedWhole(sampler, low);
        assertThat(victim).as("the gang started last goes").isEqualTo("low-b");
        // the controller tells both sides: the victim's PodGroup condition and Event, the preemptor's Event
        String told = "preempted by " + ns + "/big (priority 1000)";
        Awaitility.await("low-b's PodGroup says it was preempted").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> Kube.conditionLines(c.admin.podGroupObject(ns, "low-b")).stream()
                        .anyMatch(s -> s.startsWith("Preempted=True PriorityPreemption: " + told)));
        Awaitility.await("an Event on each side").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.admin.events(ns, "low-b").stream().anyMatch(e -> e.startsWith("Preempted: " + told))
                        && c.admin.events(ns, "big").stream().anyMatch(e -> e.startsWith("Preempting: preempting 1 gang (8 pods) on ")));
        assertThat(Kube.conditionLines(c.admin.podGroupObject(ns, "low-a"))).as("low-a was not touched").noneMatch(s -> s.startsWith("Preempted"));
        assertThat(c.extender.metrics()).containsPattern("muster_preemptions_total\\{kind=\"priority\",?} [1-9]");
        assertThat(fewest.get("low-a")).as("low-a never lost a member").isEqualTo(8);
        assertThat(disruptionTargets).as("victims seen carrying DisruptionTarget (the Eviction API sets it)").isNotEmpty()
                .allMatch(low.get("low-b")::contains);
        assertThat(c.ledgerMatchesCluster()).isTrue();
        assertThat(untruths).as("low-b's PodGroup from its eviction until its new pods waited").isEmpty();
    }

    /** A condition of a Volcano PodGroup object, or null. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> condition(Map<String, Object> podGroup, String type) {
        Object cs = Kube.status(podGroup).get("conditions");
        if (cs instanceof List<?> list) {
            for (Object o : list) {
                if (o instanceof Map<?, ?> m && type.equals(m.get("type"))) {
                    return (Map<String, Object>) m;
                }
            }
        }
        return null;
    }

    /**
     * What a victim's PodGroup says that is not so: Completed (its members were evicted, not finished), Scheduled and
     * Unschedulable both True, or a Scheduled=True with a transition time other than the one it had before the eviction
     * (the gang was not scheduled again meanwhile).
     */
    private static Set<String> untruths(Map<String, Object> podGroup, Map<String, Object> scheduledBefore) {
        Set<String> out = new HashSet<>();
        Object phase = Kube.status(podGroup).get("phase");
        if ("Completed".equals(phase)) {
            out.add("phase Completed");
        }
        Map<String, Object> scheduled = condition(podGroup, "Scheduled");
        Map<String, Object> unschedulable = condition(podGroup, "Unschedulable");
        boolean scheduledTrue = scheduled != null && "True".equals(scheduled.get("status"));
        if (scheduledTrue && unschedulable != null && "True".equals(unschedulable.get("status"))) {
            out.add("Scheduled=True and Unschedulable=True");
        }
        if (scheduledTrue && !scheduled.get("lastTransitionTime").equals(scheduledBefore.get("lastTransitionTime"))) {
            out.add("Scheduled=True since " + scheduled.get("lastTransitionTime") + ", was since " + scheduledBefore.get("lastTransitionTime"));
        }
        return out;
    }

    @Test
    void aGangThatCannotFitEvenWithEveryLowerPodGoneEvictsNothingAndSaysSo() {
        Map<String, Set<String>> low = fillWithLowGangs();
        gangJob("huge", 17, HIGH); // 17 × 250m on a cluster of 16 such places
        Awaitility.await("the reason says it preempts nothing, and why").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> Kube.conditionLines(c.admin.podGroupObject(ns, "huge")).stream()
                        .anyMatch(s -> s.contains("preempts nothing: even without every pod of lower priority")));
        Awaitility.await("nothing evicted").during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.survivors(ns, low.get("low-a")).size() == 8 && c.survivors(ns, low.get("low-b")).size() == 8);
    }

    @Test
    void aGangABudgetProtectsIsNotChosenAndTheBudgetHolds() {
        Map<String, Set<String>> low = fillWithLowGangs();
        c.workloads.podDisruptionBudget(ns, "keep-b", Map.of("job", "low-b"), 8);
        Awaitility.await("the disruption controller computed keep-b's status").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> budgetStatus("keep-b", "currentHealthy") == 8 && budgetStatus("keep-b", "disruptionsAllowed") == 0);

        gangJob("big", 8, HIGH);
        c.awaitRunning(ns, "job=big", 8);

        assertThat(c.survivors(ns, low.get("low-b"))).as("keep-b's gang kept every pod").hasSize(8);
        assertThat(c.survivors(ns, low.get("low-a"))).as("low-a went instead, whole").isEmpty();
    }

    @Test
    void preemptionPolicyNeverWaits() {
        Map<String, Set<String>> low = fillWithLowGangs();
        gangJob("polite", 4, HIGH_NEVER);
        Awaitility.await("nothing evicted").during(Duration.ofSeconds(15)).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.survivors(ns, low.get("low-a")).size() == 8 && c.survivors(ns, low.get("low-b")).size() == 8);
        assertThat(c.running(ns, "job=polite")).isZero();
    }

    @Test
    void aSingleHighPriorityPodTakesAWholeGangsRoomAndNoGangIsLeftPartial() throws InterruptedException {
        Map<String, Set<String>> low = fillWithLowGangs();
        // sampled while it happens: how many of each low gang's first pods hold room and are not being deleted
        Map<String, Set<Integer>> seen = new ConcurrentHashMap<>();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleWithFixedDelay(() -> {
            for (var e : low.entrySet()) {
                seen.computeIfAbsent(e.getKey(), k -> ConcurrentHashMap.newKeySet()).add(c.survivors(ns, e.getValue()).size());
            }
        }, 0, 100, TimeUnit.MILLISECONDS);
        // one pod of a whole node: kube-scheduler's DefaultPreemption can only offer half a gang on any node (each gang
        // of 8 spans two nodes); Muster's preempt verb refuses that, and Muster's own decision takes a gang whole
        long t0 = System.nanoTime();
        c.workloads.indexedJob(ns, "single", 1, new Workloads.PodTemplate(null, "1", "64Mi", 1, HIGH), false);
        c.awaitRunning(ns, "job=single", 1);
        System.out.printf("e2e: a priority-1000 single pod of a whole node Running on an evicted gang's room %.1f s after its Job was created%n",
                (System.nanoTime() - t0) / 1e9);
        // the victim's Job recreates its pods: they wait (a gang of 8 on one free node's room), nothing else is evicted
        Awaitility.await("nothing more evicted").during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.survivors(ns, low.get("low-a")).size() + c.survivors(ns, low.get("low-b")).size() == 8);
        String kept = oneLowGangEvictedWhole(sampler, low).equals("low-a") ? "low-b" : "low-a";
        assertThat(seen.get(kept)).as("the gang kept never lost a member").containsOnly(8);
        System.out.printf("e2e: member counts sampled every 100 ms: low-a %s, low-b %s%n", seen.get("low-a"), seen.get("low-b"));
        assertThat(c.ledgerMatchesCluster()).isTrue();
    }

    @Test
    void theDryRunNamesTheVictimsThePreemptionThenEvicts() throws InterruptedException {
        Map<String, Set<String>> low = fillWithLowGangs();
        // both low gangs protected: the first decision finds nothing to take and waits 5 s before it tries again
        for (String g : List.of("low-a", "low-b")) {
            c.workloads.podDisruptionBudget(ns, "keep-" + g, Map.of("job", g), 8);
        }
        Awaitility.await("the disruption controller computed both budgets").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> budgetStatus("keep-low-a", "disruptionsAllowed") == 0 && budgetStatus("keep-low-b", "disruptionsAllowed") == 0
                        && budgetStatus("keep-low-a", "currentHealthy") == 8 && budgetStatus("keep-low-b", "currentHealthy") == 8);
        gangJob("big", 8, HIGH);
        Awaitility.await("big preempts nothing: both gangs are protected").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> Kube.conditionLines(c.admin.podGroupObject(ns, "big")).stream().anyMatch(s -> s.contains("protected by a PodDisruptionBudget")));
        // low-b's budget goes: the dry run, asked before the next decision, names what that decision then evicts
        c.workloads.deletePodDisruptionBudget(ns, "keep-low-b");
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", c.muster.extenderGrpcPort(), InsecureChannelCredentials.create()).build();
        WhatWouldItTakeResponse advice;
        try {
            advice = Awaitility.await("the dry run sees low-b free to go").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> ExtenderGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).whatWouldItTake(
                            WhatWouldItTakeRequest.newBuilder().setGang(GangRef.newBuilder().setNamespace(ns).setName("big")).build()),
                            r -> r.getVerdict() != WhatWouldItTakeResponse.Verdict.VERDICT_CANNOT_RUN);
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
        assertThat(advice.getVerdict()).as("asked before the decision: " + advice).isEqualTo(WhatWouldItTakeResponse.Verdict.VERDICT_PREEMPT);
        Set<String> advised = advice.getVictimsList().stream().flatMap(u -> u.getPodsList().stream())
                .map(v -> v.getPod().getPod().getUid()).collect(Collectors.toSet());
        assertThat(advised).as("the dry run names low-b's 8 pods").isEqualTo(low.get("low-b"));

        c.awaitRunning(ns, "job=big", 8);
        assertThat(c.survivors(ns, low.get("low-b"))).as("exactly the advised pods were evicted").isEmpty();
        assertThat(c.survivors(ns, low.get("low-a"))).as("low-a's budget held").hasSize(8);
    }

    @Test
    void aGangBesideADeploymentUnderABudgetOfOneDisruptionRunsAndNoEvictionIsWasted() {
        // 4 web pods of 500m under maxUnavailable: 1, two gangs of 4 × 250m: the cluster's 4 cpu are full
        c.workloads.deployment(ns, "web", 4, new Workloads.PodTemplate(null, "500m", "64Mi", 1, LOW, null));
        c.workloads.podDisruptionBudgetMaxUnavailable(ns, "web", Map.of("app", "web"), 1);
        c.awaitRunning(ns, "app=web", 4);
        Awaitility.await("the disruption controller allows 1 disruption").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> budgetStatus("web", "currentHealthy") == 4 && budgetStatus("web", "disruptionsAllowed") == 1);
        gangJob("mid-a", 4, LOW);
        c.awaitRunning(ns, "job=mid-a", 4);
        gangJob("mid-b", 4, LOW);
        c.awaitRunning(ns, "job=mid-b", 4);
        Set<String> web = c.uids(ns, "app=web");
        String evicted = "muster_preemption_victims_evicted_total";
        String wasted = "muster_preemption_wasted_evictions_total";
        double evictedBefore = c.extender.gauge(evicted); // the extender's counters count every test of this JVM
        double wastedBefore = c.extender.gauge(wasted);

        // a high gang needs 1 cpu: two web pods' room would do, but the budget allows only one of them to go
        c.admin.podGroup(ns, "big", 2, queue, Map.of());
        c.workloads.indexedJob(ns, "big", 2, new Workloads.PodTemplate("big", "500m", "64Mi", 1, HIGH, null), false);
        c.awaitRunning(ns, "job=big", 2);

        double after = c.extender.gauge(evicted);
        Awaitility.await("nothing more evicted, the web pods and big keep running").during(Duration.ofSeconds(20)).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> c.extender.gauge(evicted) == after && c.running(ns, "job=big") == 2 && c.running(ns, "app=web") == 4);
        assertThat(c.extender.gauge(wasted)).as("every victim's room went to big: no eviction wasted").isEqualTo(wastedBefore);
        System.out.printf("e2e: big runs; %d of the web pods it started beside were evicted, %.0f victims in all%n",
                web.size() - c.survivors(ns, web).size(), after - evictedBefore);
        assertThat(after - evictedBefore).as("one gang's room was enough").isBetween(1.0, 4.0);
        assertThat(c.ledgerMatchesCluster()).isTrue();
    }

    /** A number of a PodDisruptionBudget's status (-1 when absent; the API hands numbers back as doubles). */
    private long budgetStatus(String name, String field) {
        Object v = Workloads.field(c.workloads.podDisruptionBudget(ns, name), "status", field);
        return v instanceof Number n ? n.longValue() : -1;
    }
}
