package dev.muster.e2e;

import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test on the real cluster with controllers and kubelets ({@link ControllersCluster}): each test gets its own
 * namespace and its own open Queue of the same name (so the Queue's status is this test's alone), and leaves the
 * cluster as it found it.
 */
@RealControlPlane
@ExtendWith(DiagnoseOnFailure.class)
abstract class ControllersClusterTest {
    protected ControllersCluster c;
    protected String ns;
    protected String queue;

    @BeforeEach
    final void joinTheCluster() {
        c = ControllersCluster.get();
        ns = c.namespace(getClass().getSimpleName().replace("E2eTest", "").toLowerCase(Locale.ROOT));
        queue = ns;
        c.admin.queue(queue, Map.of("weight", 1));
    }

    @AfterEach
    final void leaveNothingBehind() {
        c.cleanUp(ns);
    }
}
