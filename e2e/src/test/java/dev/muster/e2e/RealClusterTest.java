package dev.muster.e2e;

import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test on a real cluster ({@link E2eCluster}) its class holds alone while it runs (other classes run at the same
 * time on clusters of their own: {@link ClusterPool}): each test gets its own namespace and leaves no pod and no
 * reservation behind, so the next one starts from the same 8 empty nodes. A failing test prints the tails of the
 * extender's and the controller's logs ({@link DiagnoseOnFailure}).
 */
@RealControlPlane
@ExtendWith(E2eCluster.Lease.class)
@ExtendWith(DiagnoseOnFailure.class)
abstract class RealClusterTest {
    protected E2eCluster c;
    protected String ns;

    @BeforeEach
    final void joinTheCluster(E2eCluster cluster) {
        c = cluster;
        ns = c.namespace(getClass().getSimpleName().replace("E2eTest", "").toLowerCase(Locale.ROOT));
    }

    @AfterEach
    final void leaveNothingBehind() {
        c.cleanUp(ns);
    }
}
