package dev.muster.e2e;

import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test on a real cluster with controllers and kubelets ({@link ControllersCluster}) its class holds alone while it
 * runs ({@link ClusterPool}): each test gets its own
 * namespace and its own open Queue of the same name (so the Queue's status is this test's alone), and leaves the
 * cluster as it found it. A failing test prints, before its namespace is deleted, the logs' tails of the extender, the
 * controller and kube-controller-manager, Muster's metrics, every pod and the last events.
 */
@RealControlPlane
@ExtendWith(ControllersCluster.Lease.class)
@ExtendWith(ControllersClusterTest.Diagnose.class)
abstract class ControllersClusterTest {
    protected ControllersCluster c;
    protected String ns;
    protected String queue;

    @BeforeEach
    final void joinTheCluster(ControllersCluster cluster) {
        c = cluster;
        ns = c.namespace(getClass().getSimpleName().replace("E2eTest", "").toLowerCase(Locale.ROOT));
        queue = ns;
        c.admin.queue(queue, Map.of("weight", 1));
    }

    @AfterEach
    final void leaveNothingBehind() {
        c.cleanUp(ns);
    }

    /** Runs after the test method and before {@link #leaveNothingBehind}: what the cluster looked like when it failed. */
    static final class Diagnose implements AfterTestExecutionCallback {
        private static final int LINES = 60;

        @Override
        public void afterTestExecution(ExtensionContext context) {
            ControllersCluster c = context.getTestInstance().orElse(null) instanceof ControllersClusterTest t ? t.c : null;
            if (context.getExecutionException().isEmpty() || c == null) {
                return;
            }
            System.out.printf("e2e: %s failed; last %d lines of the extender's log:%n%s%n", context.getDisplayName(), LINES,
                    c.muster.extender().logTail(LINES));
            System.out.printf("e2e: last %d lines of the controller's log:%n%s%n", LINES, c.muster.controller().logTail(LINES));
            System.out.printf("e2e: the extender's metrics:%n%s%n", c.muster.extender().metrics().lines()
                    .filter(l -> l.startsWith("muster_")).reduce("", (a, b) -> a + b + "\n"));
            if (context.getTestInstance().orElse(null) instanceof ControllersClusterTest t && t.ns != null) {
                try {
                    for (Map<String, Object> pg : c.admin.podGroupObjects(t.ns)) {
                        System.out.printf("e2e: PodGroup %s/%s: %s%n", t.ns, ((Map<?, ?>) pg.get("metadata")).get("name"), Kube.conditionLines(pg));
                    }
                } catch (RuntimeException e) {
                    System.out.printf("e2e: PodGroups of %s not listed: %s%n", t.ns, e);
                }
            }
            System.out.printf("e2e: last %d lines of %s%n", LINES, c.diagnosis(LINES));
        }
    }
}
