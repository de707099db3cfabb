package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * kube-scheduler calls Muster over HTTPS (its {@code enableHTTPS} + {@code tlsConfig.caFile}, Go's TLS client offering
 * HTTP/2 by ALPN) and Muster's own HTTP/1.1 server answers filter and bind: a single pod and a gang bind, the gang
 * through the barrier. A second extender and a second kube-scheduler profile ({@value #SCHEDULER}) on the shared
 * control plane, so the plain-HTTP pair of the other tests is untouched.
 */
class HttpsE2eTest extends RealClusterTest {
    private static final String SCHEDULER = "muster-https";

    @Test
    @SuppressWarnings("unchecked")
    void kubeSchedulerSchedulesASinglePodAndAGangThroughMusterOverHttps() throws Exception {
        Path dir = Files.createTempDirectory("muster-https-");
        Pki.ServingCert cert = Pki.servingCert(dir);
        int port = ControlPlane.freePort();
        // no gang marker for this profile (the chart's policy marks pods of "muster" only): Muster binds every pod
        try (MusterProcess extender = MusterProcess.start("extender-https", MusterProcess.jar(c.repo, "server", c.version), List.of(
                "--kubeconfig=" + c.install.kubeconfigFor("extender"), "--http-port=" + port, "--grpc-port=" + ControlPlane.freePort(),
                "--leader-elect=false", "--scheduler-name=" + SCHEDULER, "--gang-marker=false",
                "--tls-cert-file=" + cert.certFile(), "--tls-key-file=" + cert.keyFile()), dir, ControlPlane.freePort());
             KubeScheduler scheduler = KubeScheduler.start(c.cp, c.repo.resolve("extender-config/scheduler-config-tls.yaml"),
                     "https://127.0.0.1:" + port, cfg -> {
                         ((List<Map<String, Object>>) cfg.get("profiles")).get(0).put("schedulerName", SCHEDULER);
                         for (Map<String, Object> e : (List<Map<String, Object>>) cfg.get("extenders")) {
                             e.put("tlsConfig", Map.of("caFile", cert.certFile().toString()));
                             e.remove("managedResources"); // bind every pod of the profile through Muster
                         }
                     }, "kube-scheduler-https")) {
            long t = System.nanoTime();
            c.admin.pod(ns, "single", null, "1", "1Gi", SCHEDULER, null);
            double single = c.awaitBound(ns, "single", 1, t);

            c.admin.podGroup(ns, "g", 3, "default", Map.of());
            t = System.nanoTime();
            for (int i = 0; i < 3; i++) {
                c.admin.pod(ns, "g-" + i, "g", "1", "1Gi", SCHEDULER, null);
            }
            double gang = c.awaitBound(ns, "g-", 3, t);
            System.out.printf("e2e: over HTTPS a single pod bound %.2f s and a gang of 3 %.2f s after they were created%n", single, gang);

            String metrics = extender.metrics();
            assertThat(metrics).contains("muster_extender_decisions_total{verb=\"filter\"", "muster_extender_decisions_total{verb=\"bind\",outcome=\"bound\"");
            assertThat(extender.gauge("muster_reservations")).isZero();
        }
    }
}
