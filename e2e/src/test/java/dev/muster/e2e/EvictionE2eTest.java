package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.KubeClients;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.server.evict.KubeDisruptionBudgets;
import dev.muster.server.evict.KubeEvictor;
import dev.muster.server.sync.ClusterSync;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The extender's preemption edge against the real thing: its ServiceAccount's token (the chart's RBAC) evicting through
 * the Eviction API, with a PodDisruptionBudget whose status kube-controller-manager's disruption controller computes
 * and pods that hollow kubelets run and terminate; {@link KubeDisruptionBudgets} fed by a cluster sync on the same
 * token answering as the API server then decides; dry-run evictions ({@code dryRun=All}) answered as the eviction would
 * be, spending nothing.
 */
class EvictionE2eTest extends ControllersClusterTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void theExtenderEvictsThroughTheEvictionApiAndTheBudgetsAnswerAsTheApiServerDecides() throws Exception {
        // five bare pods (no controller replaces an evicted one, so the budget's count only goes down)
        for (int i = 0; i < 5; i++) {
            V1Pod pod = Kube.podObject(ns, "db-" + i, null, "20m", "32Mi", Kube.SCHEDULER_NAME, null);
            pod.getMetadata().labels(Map.of("app", "db"));
            Kube.call("create pod", () -> c.admin.core().createNamespacedPod(ns, pod).execute());
        }
        V1Pod other = Kube.podObject(ns, "other", null, "20m", "32Mi", Kube.SCHEDULER_NAME, null);
        other.getMetadata().labels(Map.of("app", "other"));
        Kube.call("create pod", () -> c.admin.core().createNamespacedPod(ns, other).execute());
        c.workloads.podDisruptionBudget(ns, "db", Map.of("app", "db"), 3);
        c.awaitRunning(ns, "app=db", 5);
        Awaitility.await("the disruption controller allows 2 disruptions").atMost(WAIT).pollInterval(Duration.ofMillis(250))
                .until(() -> Workloads.field(c.workloads.podDisruptionBudget(ns, "db"), "status", "disruptionsAllowed") instanceof Number n
                        && n.intValue() == 2);

        KubeClients extender = KubeClients.fromKubeconfig(c.install.kubeconfigFor("extender", "eviction-e2e"));
        KubeDisruptionBudgets budgets = new KubeDisruptionBudgets();
        GangScheduler sink = new GangScheduler(SchedulerConfig.DEFAULT,
                (pod, node) -> CompletableFuture.failedFuture(new IllegalStateException("this test binds nothing")),
                new AllocationJournal(16, java.time.InstantSource.system()), System::nanoTime);
        try (ClusterSync sync = new ClusterSync(extender.watches(), sink, Duration.ZERO, "muster", Duration.ofMinutes(1), budgets);
             KubeEvictor evictor = new KubeEvictor(extender.requests(), () -> true)) {
            sync.start();
            Awaitility.await("the cluster sync (pods and budgets, on the extender's token) listed").atMost(WAIT).until(sync::isSynced);
            List<PodId> db = c.admin.pods(ns, "app=db").stream().map(EvictionE2eTest::id).toList();
            assertThat(budgets.blocking(db.subList(0, 2))).as("two of five may go").isNull();
            assertThat(budgets.blocking(db.subList(0, 3))).as("a third would break minAvailable 3").isEqualTo(ns + "/db");

            // a dry run (dryRun=All) is answered as the eviction would be, and neither deletes the pod nor spends the budget
            for (PodId pod : db) {
                assertThat(evictor.check(pod).toCompletableFuture().get()).as("dry run of " + pod).isEqualTo(new EvictionOutcome.Evicted());
            }
            assertThat(c.admin.pods(ns, "app=db")).as("no pod deleted by the dry runs").hasSize(5)
                    .allSatisfy(p -> assertThat(p.getMetadata().getDeletionTimestamp()).isNull());
            assertThat(Workloads.field(c.workloads.podDisruptionBudget(ns, "db"), "status", "disruptionsAllowed"))
                    .as("the budget still allows 2").isInstanceOfSatisfying(Number.class, n -> assertThat(n.intValue()).isEqualTo(2));

            assertThat(evictor.evict(db.get(0), "e2e").toCompletableFuture().get()).isEqualTo(new EvictionOutcome.Evicted());
            assertThat(evictor.evict(db.get(1), "e2e").toCompletableFuture().get()).isEqualTo(new EvictionOutcome.Evicted());
            assertThat(evictor.check(db.get(2)).toCompletableFuture().get())
                    .as("the budget is spent: its dry run is refused with 429 too").isInstanceOf(EvictionOutcome.RefusedByBudget.class);
            assertThat(evictor.evict(db.get(2), "e2e").toCompletableFuture().get())
                    .as("the budget is spent: the API server refuses with 429")
                    .isInstanceOfSatisfying(EvictionOutcome.RefusedByBudget.class, r -> assertThat(r.message()).contains("disruption budget"));
            Awaitility.await("the evicted pods terminate on their kubelets").atMost(WAIT).pollInterval(Duration.ofMillis(250))
                    .until(() -> c.admin.pods(ns, "app=db").stream().noneMatch(p -> p.getMetadata().getUid().equals(db.get(0).uid())
                            || p.getMetadata().getUid().equals(db.get(1).uid())));
            Awaitility.await("the budget, as the informer shows it, allows no more").atMost(WAIT).pollInterval(Duration.ofMillis(250))
                    .until(() -> (ns + "/db").equals(budgets.blocking(List.of(db.get(2)))));

            assertThat(evictor.evict(db.get(0), "e2e").toCompletableFuture().get()).as("already gone").isEqualTo(new EvictionOutcome.Gone());
            // the API server checks the UID precondition when it deletes, after the budget: shown on a pod no budget covers
            V1Pod current = c.admin.pods(ns, "app=other").getFirst();
            assertThat(evictor.evict(new PodId(current.getMetadata().getUid() + "-earlier", ns, "other"), "e2e").toCompletableFuture().get())
                    .as("another pod under that name (its uid differs): not evicted").isEqualTo(new EvictionOutcome.Gone());
            assertThat(c.admin.pods(ns, "app=other")).singleElement()
                    .satisfies(p -> assertThat(p.getMetadata().getDeletionTimestamp()).as("still there, not terminating").isNull());
        }

        KubeClients controller = KubeClients.fromKubeconfig(c.install.kubeconfigFor("controller", "eviction-e2e-controller"));
        try (KubeEvictor notAllowed = new KubeEvictor(controller.requests(), () -> true)) {
            V1Pod any = c.admin.pods(ns, "app=db").getFirst();
            assertThat(notAllowed.evict(id(any), "e2e").toCompletableFuture().get()).as("only the extender may evict")
                    .isInstanceOfSatisfying(EvictionOutcome.Failed.class, f -> assertThat(f.message()).contains("HTTP 403"));
        }
    }

    private static PodId id(V1Pod p) {
        return new PodId(p.getMetadata().getUid(), p.getMetadata().getNamespace(), p.getMetadata().getName());
    }
}
