package dev.muster.demo.cluster;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.muster.controller.writer.StatusPatchException;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.QueueStatus;
import dev.muster.core.status.StatusKey;
import dev.muster.core.testing.Fixtures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EmbeddedClusterTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final EmbeddedCluster cluster = new EmbeddedCluster(now::get);
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    private static PodId id(String name) {
        return new PodId("uid-" + name, "ns", name);
    }

    private ClusterPod pod(String name, String cpu) {
        return cluster.createPod(id(name), res(cpu, "1Gi"), null, "muster", 0, Duration.ofSeconds(10));
    }

    private List<ClusterEvent> watch() {
        List<ClusterEvent> events = new CopyOnWriteArrayList<>();
        toClose.add(cluster.watch("test", events::add));
        return events;
    }

    @Test
    void aWatchGetsTheCurrentListThenSyncedThenEveryChangeInOrder() {
        cluster.applyNode(node("node-1", "4", "8Gi"));
        cluster.applyQueue(Fixtures.queue("q"));
        cluster.createPodGroup(podGroup("ns", "g", 2, "q"));
        pod("a", "1");

        List<ClusterEvent> events = watch();
        cluster.bind(id("a"), "node-1");
        cluster.startPod("uid-a");
        cluster.finishPod("uid-a", PodPhase.SUCCEEDED);

        await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == 8);
        assertThat(events).extracting(e -> e.getClass().getSimpleName()).containsExactly("NodeAdded", "QueueChanged", "PodGroupChanged",
                "PodChanged", "Synced", "PodChanged", "PodChanged", "PodChanged");
        assertThat(events.subList(5, 8)).extracting(e -> ((ClusterEvent.PodChanged) e).pod().phase())
                .containsExactly(PodPhase.PENDING, PodPhase.RUNNING, PodPhase.SUCCEEDED);
        assertThat(((ClusterEvent.PodChanged) events.get(5)).pod().nodeName()).isEqualTo("node-1");
    }

    static Stream<Arguments> refusedBinds() {
        return Stream.of(
                Arguments.of("an unknown pod", "ghost", "node-1", ClusterException.Reason.NOT_FOUND, "pods \"ns/ghost\" (uid uid-ghost) not found"),
                Arguments.of("a pod already bound", "bound", "node-1", ClusterException.Reason.CONFLICT, "is already assigned to node \"node-1\""),
                Arguments.of("a finished pod", "done", "node-1", ClusterException.Reason.CONFLICT, "has already finished (Failed)"),
                Arguments.of("an unknown node", "fresh", "node-9", ClusterException.Reason.INVALID, "node \"node-9\" does not exist"));
    }

    @ParameterizedTest(name = "binding {0} is refused")
    @MethodSource("refusedBinds")
    void bindsAreRefusedAsAnApiServerWould(String caseName, String pod, String node, ClusterException.Reason reason, String message) {
        cluster.applyNode(node("node-1", "4", "8Gi"));
        pod("bound", "1");
        cluster.bind(id("bound"), "node-1");
        pod("done", "1");
        cluster.finishPod("uid-done", PodPhase.FAILED);
        pod("fresh", "1");

        assertThatThrownBy(() -> cluster.bind(id(pod), node))
                .isInstanceOfSatisfying(ClusterException.class, e -> assertThat(e.reason()).isEqualTo(reason))
                .hasMessageContaining(message);
        assertThat(cluster.counters().bindRejections()).isEqualTo(1);
    }

    @Test
    void aBindRecordsWhereAndWhenAndCountsTheRequestOnItsNode() {
        cluster.applyNode(node("node-1", "4", "8Gi"));
        pod("a", "1500m");
        now.set(5_000);

        ClusterPod bound = cluster.bind(id("a"), "node-1");

        assertThat(bound.nodeName()).isEqualTo("node-1");
        assertThat(bound.boundAt()).isEqualTo(5_000);
        assertThat(bound.createdAt()).isEqualTo(1_000);
        assertThat(cluster.usage().used().cpuMillis()).isEqualTo(1500);
        assertThat(cluster.usage().pods("bound")).isEqualTo(1);
    }

    @Test
    void theKubeletRefusesAPodItsNodeCannotHoldAndTheOverBookingIsCounted() {
        cluster.applyNode(node("node-1", "2", "8Gi"));
        pod("a", "1500m");
        pod("b", "1");
        cluster.bind(id("a"), "node-1");
        cluster.bind(id("b"), "node-1");

        ClusterPod started = cluster.startPod("uid-b");

        assertThat(started.phase()).isEqualTo(PodPhase.FAILED);
        assertThat(cluster.counters().overcommittingBinds()).isEqualTo(1);
        assertThat(cluster.counters().admissionRejections()).singleElement().asString().contains("pod ns/b on node-1: OutOfcpu");
        assertThat(cluster.startPod("uid-a").phase()).isEqualTo(PodPhase.RUNNING);
    }

    @Test
    void finishingAPodFreesItsRequestOnce() {
        cluster.applyNode(node("node-1", "4", "8Gi"));
        pod("a", "2");
        cluster.bind(id("a"), "node-1");
        cluster.startPod("uid-a");

        assertThat(cluster.finishPod("uid-a", PodPhase.SUCCEEDED)).isNotNull();
        assertThat(cluster.finishPod("uid-a", PodPhase.FAILED)).isNull();

        assertThat(cluster.usage().used().cpuMillis()).isZero();
        assertThat(cluster.pod("uid-a").finishedAt()).isEqualTo(1_000);
    }

    @Test
    void usageSplitsBoundPodsByTheirPodGroupsQueueAndShowsWrittenStatus() {
        cluster.applyNode(node("node-1", "16", "64Gi"));
        cluster.applyQueue(Fixtures.queue("q", res("8", "32Gi")));
        cluster.createPodGroup(podGroup("ns", "g", 1, "q"));
        cluster.createPod(id("m"), res("3", "1Gi"), new GangKey("ns", "g"), "muster", 0, null);
        pod("single", "1");
        cluster.bind(id("m"), "node-1");
        cluster.bind(id("single"), "node-1");
        Resources written = res("3", "1Gi");
        cluster.patchQueueStatus("q", new QueueStatus(QueueState.OPEN, 0, 0, 1, 0, 0, written));

        ClusterUsage u = cluster.usage();

        assertThat(u.used().cpuMillis()).isEqualTo(4000);
        assertThat(u.usedByQueue().get("q").cpuMillis()).isEqualTo(3000);
        assertThat(u.statusByQueue().get("q")).isEqualTo(written);
        assertThat(u.gangsRunning()).isEqualTo(1);
        assertThat(cluster.queue("q").statusWrites()).isEqualTo(1);
    }

    @Test
    void theStatusPatcherWritesStatusAndANotFoundIsA404TheWriterRetries() throws Exception {
        cluster.applyQueue(Fixtures.queue("q"));
        ClusterStatusPatcher patcher = new ClusterStatusPatcher(cluster);
        QueueStatus status = new QueueStatus(QueueState.OPEN, 1, 0, 0, 0, 0, Resources.ZERO);

        patcher.patch(StatusKey.queue("q"), status, null);

        assertThat(cluster.queue("q").status()).isEqualTo(status);
        assertThatThrownBy(() -> patcher.patch(StatusKey.queue("gone"), status, null))
                .isInstanceOfSatisfying(StatusPatchException.class, e -> assertThat(e.kind()).isEqualTo(StatusPatchException.Kind.NOT_FOUND))
                .hasMessageContaining("queues.scheduling.volcano.sh \"gone\" not found");
    }

    @Test
    void theBinderTakesAConflictOnTheSameNodeAsSuccessLikeTheKubeBinder() {
        cluster.applyNode(node("node-1", "4", "8Gi"));
        cluster.applyNode(node("node-2", "4", "8Gi"));
        pod("a", "1");
        ExecutorService executor = Executors.newSingleThreadExecutor();
        toClose.add(executor::shutdownNow);
        ClusterBinder binder = new ClusterBinder(cluster, executor);

        binder.bind(id("a"), "node-1").toCompletableFuture().join();
        binder.bind(id("a"), "node-1").toCompletableFuture().join();

        assertThatThrownBy(() -> binder.bind(id("a"), "node-2").toCompletableFuture().join())
                .hasMessageContaining("binding ns/a to node-2: HTTP 409");
    }

    @Test
    void concurrentBindsFromManyThreadsEachLandOnceAndTheBooksBalance() {
        for (int n = 1; n <= 4; n++) {
            cluster.applyNode(node("node-" + n, "1000", "1000Gi"));
        }
        int pods = 400;
        for (int i = 0; i < pods; i++) {
            pod("p" + i, "1");
        }
        List<ClusterEvent> events = watch();
        ExecutorService executor = Executors.newFixedThreadPool(8);
        toClose.add(executor::shutdownNow);
        List<CompletableFuture<Integer>> results = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int thread = t;
            results.add(CompletableFuture.supplyAsync(() -> {
                int won = 0;
                for (int i = 0; i < pods; i++) {
                    try {
                        cluster.bind(id("p" + i), "node-" + (1 + (i + thread) % 4));
                        won++;
                    } catch (ClusterException e) {
                        // another thread bound it first: exactly one may win
                    }
                }
                return won;
            }, executor));
        }

        int total = results.stream().mapToInt(CompletableFuture::join).sum();

        assertThat(total).isEqualTo(pods);
        assertThat(cluster.counters().binds()).isEqualTo(pods);
        assertThat(cluster.usage().used().cpuMillis()).isEqualTo(pods * 1000L);
        assertThat(cluster.pods()).allMatch(ClusterPod::isBound);
        await().atMost(Duration.ofSeconds(10)).until(() -> events.size() == pods + 4 + 1 + pods);
        long boundEvents = events.stream().filter(e -> e instanceof ClusterEvent.PodChanged c && c.pod().isBound()).count();
        assertThat(boundEvents).isEqualTo(pods);
    }
}
