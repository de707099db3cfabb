package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chart's gang marker policy on an API server with no feature gates (the shared e2e cluster enables Kubernetes'
 * Workload API): its condition reads {@code spec.schedulingGroup}, and a policy that failed to evaluate would, with
 * {@code failurePolicy: Fail}, refuse every pod created for Muster's scheduler. Pods are asked for in dry-run only.
 */
@RealControlPlane
class GangMarkerOnADefaultApiServerE2eTest {
    @Test
    void gangMembersOfEveryApiAreMarkedAndEveryOtherPodIsCreatedUnchanged() throws Exception {
        ControlPlane.Options env = ControlPlane.Options.fromEnvironment(Files.createTempDirectory("muster-e2e-default-gates-"));
        try (ControlPlane cp = ControlPlane.start(new ControlPlane.Options(env.binaries(), env.dataDir(), env.keepData(), List.of()))) {
            Kube admin = new Kube(cp.adminClient());
            MusterInstall.install(cp, E2eCluster.REPO.resolve("charts/muster"));
            String ns = admin.namespace("default-gates");

            V1Pod labelled = Kube.podObject(ns, "coscheduling", null, "1m", "1Mi", Kube.SCHEDULER_NAME, null);
            labelled.getMetadata().labels(Map.of(Kube.SP_LABEL, "pg"));

            assertThat(Kube.gangMarked(dryRun(admin, ns, Kube.podObject(ns, "volcano", "pg", "1m", "1Mi", Kube.SCHEDULER_NAME, null)))).isTrue();
            assertThat(Kube.gangMarked(dryRun(admin, ns, labelled))).isTrue();
            assertThat(Kube.gangMarked(dryRun(admin, ns, Kube.podObject(ns, "single", null, "1m", "1Mi", Kube.SCHEDULER_NAME, null)))).isFalse();
            assertThat(Kube.gangMarked(dryRun(admin, ns, Kube.podObject(ns, "other", "pg", "1m", "1Mi", "default-scheduler", null)))).isFalse();
        }
    }

    private static V1Pod dryRun(Kube admin, String ns, V1Pod pod) {
        return Kube.call("dry-run create " + pod.getMetadata().getName(), () -> admin.core().createNamespacedPod(ns, pod).dryRun("All").execute());
    }
}
