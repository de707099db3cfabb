package dev.muster.server.http;

import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.testsupport.extender.ExtenderClient;
import dev.muster.testsupport.extender.KubeSchedulerSimulator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Over real HTTP on loopback, calling as kube-scheduler does: filter and prioritize serially per pod,
 * each bind on its own thread.
 */
class KubeSchedulerLoopbackTest {
    private ExtenderHarness h;
    private KubeSchedulerSimulator sim;

    @BeforeEach
    void setUp() throws Exception {
        h = new ExtenderHarness();
        sim = new KubeSchedulerSimulator(h.client);
    }

    @AfterEach
    void tearDown() {
        sim.close();
        h.close();
    }

    private static List<ExtenderClient.PodSpec> gang(String name, int n, String cpu, String mem) {
        List<ExtenderClient.PodSpec> pods = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pods.add(new ExtenderClient.PodSpec(name + "-" + i, "default", name + "-uid-" + i, Map.of("cpu", cpu, "memory", mem),
                    Map.of(GangMembership.GROUP_NAME, name), "muster"));
        }
        return pods;
    }

    /** Registers the pods as the informer would (pending), then runs serial scheduling cycles. */
    private List<KubeSchedulerSimulator.Attempt> schedule(List<ExtenderClient.PodSpec> pods) {
        List<KubeSchedulerSimulator.Attempt> attempts = new ArrayList<>();
        for (ExtenderClient.PodSpec p : pods) {
            attempts.add(sim.scheduleOne(p, h.nodeNames));
        }
        return attempts;
    }

    private void informerSeesPending(List<ExtenderClient.PodSpec> pods, String gang) {
        for (ExtenderClient.PodSpec p : pods) {
            h.scheduler.upsertPod(dev.muster.core.testing.Fixtures.pod(p.name()).uid(p.uid()).gang(gang)
                    .requests(p.requests().get("cpu"), p.requests().get("memory")).build());
        }
    }

    private static List<String> joinAll(List<KubeSchedulerSimulator.Attempt> attempts) {
        List<String> out = new ArrayList<>();
        for (KubeSchedulerSimulator.Attempt a : attempts) {
            out.add(a.scheduled() ? a.bind().orTimeout(2, TimeUnit.MINUTES).join() : "unschedulable: " + a.unschedulableReason());
        }
        return out;
    }

    @Test
    void aGangOf64IsBoundWhole() {
        h.uniformNodes(16, "16", "64Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "g64", 64, "default"));
        h.scheduler.markSynced();
        List<ExtenderClient.PodSpec> pods = gang("g64", 64, "2", "4Gi");
        informerSeesPending(pods, "g64");

        List<KubeSchedulerSimulator.Attempt> attempts = schedule(pods);
        assertThat(attempts).allMatch(KubeSchedulerSimulator.Attempt::scheduled);
        assertThat(joinAll(attempts)).containsOnly("");
        assertThat(h.binder.bound()).hasSize(64);
    }

    @Test
    void twoGangsThatCannotBothFitEndWithOneWholeAndTheOtherWithNothing() {
        h.uniformNodes(10, "8", "32Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "a", 6, "default"));
        h.scheduler.upsertPodGroup(podGroup("default", "b", 6, "default"));
        h.scheduler.markSynced();
        List<ExtenderClient.PodSpec> a = gang("a", 6, "8", "32Gi");
        List<ExtenderClient.PodSpec> b = gang("b", 6, "8", "32Gi");
        informerSeesPending(a, "a");
        informerSeesPending(b, "b");
        List<ExtenderClient.PodSpec> interleaved = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            interleaved.add(a.get(i));
            interleaved.add(b.get(i));
        }
        List<KubeSchedulerSimulator.Attempt> attempts = schedule(interleaved);
        // b's members are not refused at filter (kube-scheduler could park them): their binds are held, then fail
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(1)).until(() -> h.binder.bound().size() == 6);
        h.clock.advance(dev.muster.core.scheduler.SchedulerConfig.DEFAULT.admissionHold());
        h.scheduler.expireDue();
        List<String> results = joinAll(attempts);

        long aBound = h.binder.bound().keySet().stream().filter(u -> u.startsWith("a-")).count();
        long bBound = h.binder.bound().keySet().stream().filter(u -> u.startsWith("b-")).count();
        assertThat(List.of(aBound, bBound)).containsExactlyInAnyOrder(6L, 0L);
        assertThat(results.stream().filter(String::isEmpty).count()).isEqualTo(6);
        assertThat(results.stream().filter(r -> r.contains("needs 6×(8 cpu, 32Gi memory), fits 4")).count()).isEqualTo(6);
    }

    @Test
    void aGangWhoseLastMemberNeverArrivesTimesOutWithNothingBoundAndCapacityReleased() {
        h.uniformNodes(4, "8", "32Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "late", 5, "default"));
        h.scheduler.markSynced();
        List<ExtenderClient.PodSpec> pods = gang("late", 5, "2", "2Gi");
        informerSeesPending(pods, "late");

        List<KubeSchedulerSimulator.Attempt> attempts = schedule(pods.subList(0, 4));
        assertThat(attempts).allMatch(KubeSchedulerSimulator.Attempt::scheduled);
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(1))
                .until(() -> h.scheduler.gang(new GangKey("default", "late")).waiting() == 4);
        assertThat(attempts).noneMatch(a -> a.bind().isDone());

        h.clock.advance(Duration.ofSeconds(61));
        h.scheduler.expireDue();

        assertThat(joinAll(attempts)).allMatch(r -> r.contains("deadline passed with 4/5 members bound or waiting"));
        assertThat(h.binder.bound()).isEmpty();
        boolean released = h.scheduler.ledger().empty();
        assertThat(released).isTrue();
    }

    @Test
    void twoThousandBindsOfOneGangWaitingAtOnceAllComplete() {
        h.uniformNodes(64, "64", "256Gi");
        int n = 2_000;
        h.scheduler.upsertPodGroup(podGroup("default", "wide", n, "default"));
        h.scheduler.markSynced();
        List<ExtenderClient.PodSpec> pods = gang("wide", n, "1", "1Gi");
        informerSeesPending(pods, "wide");

        List<KubeSchedulerSimulator.Attempt> attempts = schedule(pods.subList(0, n - 1));
        org.awaitility.Awaitility.await().atMost(Duration.ofMinutes(2))
                .until(() -> h.scheduler.gang(new GangKey("default", "wide")).waiting() == n - 1);
        assertThat(h.binder.bound()).isEmpty();
        attempts.add(sim.scheduleOne(pods.get(n - 1), h.nodeNames));

        List<CompletableFuture<String>> binds = attempts.stream().map(KubeSchedulerSimulator.Attempt::bind).toList();
        assertThat(binds).allMatch(f -> f.orTimeout(2, TimeUnit.MINUTES).join().isEmpty());
        assertThat(h.binder.bound()).hasSize(n);
    }
}
