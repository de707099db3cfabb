package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.proto.v1.AllocationsGrpc;
import dev.muster.proto.v1.BindRequest;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.FilterRequest;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.PodRef;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WhatWouldItTakeRequest;
import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The chart's mutual TLS as installed: the CA and certificates Helm generated into the release's Secrets, and the
 * KubeSchedulerConfiguration the chart rendered into its ConfigMap (extender tlsConfig certFile/keyFile/caFile), run by
 * an unmodified kube-scheduler against an extender started with the chart's flags. Only the kube-scheduler schedules:
 * a client without a certificate of that CA is refused on the verbs port and on the gRPC port (Extender and the
 * allocation stream) and changes nothing. Each entry point serves only its own caller, by the certificate's identity
 * (the chart's {@code --tls-client-roles}): the controller's and the operator's certificates are refused on the verbs
 * (HTTP and gRPC), the allocation stream is the controller's, the dry run the operator's. An upgrade keeps the certificates; Secrets deleted and upgraded get a new CA,
 * which the running extender takes up from its files without a restart.
 *
 * <p>A second extender and a second kube-scheduler profile ({@value #SCHEDULER}) on the shared control plane: the
 * kube-scheduler dials 127.0.0.1 and checks the extender's certificate against the Service name it was made for
 * ({@code tlsConfig.serverName}), as it does in the cluster by the Service's DNS name.
 */
class MutualTlsE2eTest extends RealClusterTest {
    private static final String SCHEDULER = "muster-mtls";
    private static final String SERVICE = ChartTls.SERVICE;

    @Test
    @SuppressWarnings("unchecked")
    void eachCallerReachesOnlyItsOwnEntryPointAndARenewedCaNeedsNoRestart() throws Exception {
        Path dir = Files.createTempDirectory("muster-mtls-");
        Path ext = secretFiles("muster-extender-tls", dir.resolve("extender"));
        Path sched = secretFiles("muster-scheduler-client-tls", dir.resolve("scheduler"));
        Path ctl = secretFiles("muster-controller-client-tls", dir.resolve("controller"));
        Path op = secretFiles("muster-operator-client-tls", dir.resolve("operator"));
        Path chartConfig = c.chartTls().schedulerConfig(dir.resolve("chart-scheduler-config.yaml"));
        assertThat(Files.readString(chartConfig)).contains("certFile: /etc/muster/extender-client/tls.crt", "enableHTTPS: true");

        int http = ControlPlane.freePort();
        int grpc = ControlPlane.freePort();
        // the chart's extender flags (templates/extender/deployment.yaml), the Secret's files in place of its mount
        try (MusterProcess extender = MusterProcess.start("extender-mtls", MusterProcess.Program.EXTENDER, c.repo, c.version,
                c.chartTls().extenderArgs(ext, http, grpc, SCHEDULER), dir, ControlPlane.freePort())) {
            KubeScheduler scheduler = chartsKubeScheduler(chartConfig, http, sched, "kube-scheduler-mtls");
            try {
                long t = System.nanoTime();
                c.admin.pod(ns, "single", null, "1", "1Gi", SCHEDULER, null);
                c.admin.podGroup(ns, "g", 3, "default", Map.of());
                for (int i = 0; i < 3; i++) {
                    c.admin.pod(ns, "g-" + i, "g", "1", "1Gi", SCHEDULER, null);
                }
                c.awaitBound(ns, "single", 1, t);
                double gang = c.awaitBound(ns, "g-", 3, t);
                System.out.printf("e2e: the chart's kube-scheduler over mTLS bound a single pod and a gang of 3 within %.2f s%n", gang);
                // kube-scheduler chose HTTP/2 by ALPN: the gang's three held binds shared its connection, none opened one of its own
                double h2 = extender.counter("muster_extender_connections_total", "protocol", "h2");
                assertThat(h2).as("kube-scheduler's connections over HTTP/2").isGreaterThanOrEqualTo(1);
                assertThat(extender.counter("muster_extender_connections_total", "protocol", "http/1.1"))
                        .as("kube-scheduler's connections over HTTP/1.1").isZero();
                System.out.printf("e2e: kube-scheduler reached the extender over %.0f HTTP/2 connection(s), none over HTTP/1.1%n", h2);

                // a pending pod for the uncredentialed clients to try to bind (its profile has no kube-scheduler running)
                var target = c.admin.pod(ns, "target", null, "1", "1Gi", SCHEDULER + "-nobody", null);
                double podsBefore = extender.gauge("muster_ledger_pods");
                assertThat(post(http, sched, ext.resolve("ca.crt"))).as("the same call with kube-scheduler's certificate: its body is bad")
                        .isEqualTo(400);
                refusedEverywhere(http, grpc, ext, sched, ns, target.getMetadata().getUid());
                // each entry point serves only its own caller: the controller's and the operator's certificates are refused
                // on the verbs (HTTP and gRPC), the controller's is served the allocation stream, the operator's the dry run
                String uid = target.getMetadata().getUid();
                for (Path notTheScheduler : List.of(ctl, op)) {
                    for (String verb : List.of("/filter", "/bind")) {
                        assertThat(post(http, notTheScheduler, ext.resolve("ca.crt"), verb, GhostPodsE2eTest.bindBody(ns, "target", uid, "node-0")))
                                .as("%s with %s's certificate", verb, notTheScheduler.getFileName()).isEqualTo(403);
                    }
                    try (Channel refused = new Channel(grpc, credentials(ext, notTheScheduler))) {
                        ExtenderGrpc.ExtenderBlockingStub stub = ExtenderGrpc.newBlockingStub(refused.channel).withDeadlineAfter(20, TimeUnit.SECONDS);
                        assertThatThrownBy(() -> stub.bind(bind(ns, uid))).isInstanceOfSatisfying(StatusRuntimeException.class,
                                e -> assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.PERMISSION_DENIED));
                        assertThatThrownBy(() -> stub.filter(FilterRequest.getDefaultInstance())).isInstanceOfSatisfying(StatusRuntimeException.class,
                                e -> assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.PERMISSION_DENIED));
                    }
                }
                try (Channel controller = new Channel(grpc, credentials(ext, ctl)); Channel operator = new Channel(grpc, credentials(ext, op))) {
                    assertThat(AllocationsGrpc.newBlockingStub(controller.channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                            .watch(WatchRequest.getDefaultInstance()).hasNext()).isTrue();
                    assertThatThrownBy(() -> AllocationsGrpc.newBlockingStub(operator.channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                            .watch(WatchRequest.getDefaultInstance()).hasNext()).isInstanceOfSatisfying(StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.PERMISSION_DENIED));
                    WhatWouldItTakeRequest dryRun = WhatWouldItTakeRequest.newBuilder()
                            .setGang(GangRef.newBuilder().setNamespace(ns).setName("g")).build();
                    assertThat(ExtenderGrpc.newBlockingStub(operator.channel).withDeadlineAfter(20, TimeUnit.SECONDS).whatWouldItTake(dryRun)
                            .getWhy()).as("the operator's certificate is served the dry run").isNotBlank();
                    assertThatThrownBy(() -> ExtenderGrpc.newBlockingStub(controller.channel).withDeadlineAfter(20, TimeUnit.SECONDS)
                            .whatWouldItTake(dryRun)).isInstanceOfSatisfying(StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.PERMISSION_DENIED));
                }
                assertThat(c.admin.bound(ns, "target")).isEmpty();
                assertThat(extender.gauge("muster_ledger_pods")).isEqualTo(podsBefore);
                assertThat(extender.gauge("muster_reservations")).isZero();
                assertThat(extender.gauge("muster_held_binds")).isZero();

                // an upgrade keeps the certificates
                String caBefore = Files.readString(ext.resolve("ca.crt"));
                upgrade();
                assertThat(secret("muster-extender-tls").get("ca.crt")).isEqualTo(caBefore);

                // Secrets gone, upgraded: a new CA; the running extender takes up the new files, kube-scheduler restarts
                // (the chart's checksum annotation on its pod template), and scheduling goes on
                for (String s : ChartTls.SECRETS) {
                    Kube.call("delete " + s, () -> c.admin.core().deleteNamespacedSecret(s, MusterInstall.NAMESPACE).execute());
                }
                upgrade();
                assertThat(secret("muster-extender-tls").get("ca.crt")).isNotEqualTo(caBefore);
                long pid = extender.pid();
                replaceFiles(secretFiles("muster-extender-tls", dir.resolve("extender-new")), ext);
                Path schedNew = secretFiles("muster-scheduler-client-tls", dir.resolve("scheduler-new"));
                Awaitility.await("the extender serves the new certificate to the new CA's clients").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .until(() -> post(http, schedNew, schedNew.resolve("ca.crt")) < 500);
                assertThat(Files.readString(extender.log())).contains("TLS files changed");
                scheduler.close();
                scheduler = chartsKubeScheduler(chartConfig, http, schedNew, "kube-scheduler-mtls-renewed");
                c.admin.podGroup(ns, "h", 2, "default", Map.of());
                t = System.nanoTime();
                for (int i = 0; i < 2; i++) {
                    c.admin.pod(ns, "h-" + i, "h", "1", "1Gi", SCHEDULER, null);
                }
                double renewed = c.awaitBound(ns, "h-", 2, t);
                System.out.printf("e2e: after the CA was renewed (extender not restarted) a gang of 2 bound %.2f s after it was created%n", renewed);
                assertThat(extender.pid()).isEqualTo(pid);
                // a client certificate of the replaced CA is still accepted for a grace period
                // (CertificateFiles.PREVIOUS_CA_GRACE, 10 minutes), so a client whose Secret volume lags keeps working, and
                // the extender's log says so; that it is refused once the period is over is CaTrust's unit tests' to show
                assertThat(post(http, sched, ext.resolve("ca.crt"))).isLessThan(500);
                assertThat(Files.readString(extender.log())).contains("is still trusted for");
            } finally {
                scheduler.close();
            }
        } finally {
            if (!Boolean.getBoolean("muster.e2e.keep")) {
                deleteTree(dir); // private keys and logs: nothing stays behind unless asked to
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** No certificate, or one another CA signed: refused at the handshake on both ports, before any verb. */
    private static void refusedEverywhere(int http, int grpc, Path ext, Path sched, String ns, String uid) throws Exception {
        assertThatThrownBy(() -> post(http, null, sched.resolve("ca.crt"))).as("HTTPS without a client certificate").isInstanceOf(IOException.class);
        Http.Answer plain = Http.post("http://127.0.0.1:" + http + "/bind", "application/json",
                GhostPodsE2eTest.bindBody(ns, "target", uid, "node-0"));
        assertThat(plain.status()).as("plain HTTP to the TLS port: " + plain.body()).isNotEqualTo(200);
        Path selfSigned = Files.createTempDirectory(ext.getParent(), "stranger-");
        Pki.ServingCert stranger = Pki.servingCert(selfSigned);
        assertThatThrownBy(() -> post(http, selfSignedDir(stranger), ext.resolve("ca.crt"))).as("a certificate of another CA")
                .isInstanceOf(IOException.class);

        for (ChannelCredentials creds : List.of(TlsChannelCredentials.newBuilder().trustManager(ext.resolve("ca.crt").toFile()).build(),
                credentials(ext, selfSignedDir(stranger)))) {
            try (Channel ch = new Channel(grpc, creds)) {
                assertThatThrownBy(() -> ExtenderGrpc.newBlockingStub(ch.channel).withDeadlineAfter(10, TimeUnit.SECONDS).bind(bind(ns, uid)))
                        .isInstanceOf(StatusRuntimeException.class);
                assertThatThrownBy(() -> AllocationsGrpc.newBlockingStub(ch.channel).withDeadlineAfter(10, TimeUnit.SECONDS)
                        .watch(WatchRequest.getDefaultInstance()).hasNext()).isInstanceOf(StatusRuntimeException.class);
            }
        }
    }

    private static Path selfSignedDir(Pki.ServingCert cert) throws IOException {
        Path d = cert.certFile().getParent();
        Files.copy(cert.certFile(), d.resolve("tls.crt"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(cert.keyFile(), d.resolve("tls.key"), StandardCopyOption.REPLACE_EXISTING);
        return d;
    }

    private static BindRequest bind(String ns, String uid) {
        return BindRequest.newBuilder().setPod(PodRef.newBuilder().setUid(uid).setName("target").setNamespace(ns)).setNode("node-0").build();
    }

    /** TLS to the extender presenting the certificate in {@code clientDir} (PKCS#1 keys, as Helm writes them, read by Muster's reader). */
    private static ChannelCredentials credentials(Path ext, Path clientDir) throws IOException {
        return TlsChannelCredentials.newBuilder().trustManager(ext.resolve("ca.crt").toFile())
                .keyManager(new dev.muster.common.tls.CertificateFiles(clientDir.resolve("tls.crt"), clientDir.resolve("tls.key"), null).keyManager())
                .build();
    }

    /**
     * POST /filter (an empty body: a 400 once through) over HTTPS, checking the extender's certificate against
     * {@code caFile} (not its host name: it is dialled at 127.0.0.1), presenting the certificate in {@code clientDir};
     * with a null {@code clientDir}, the trust of {@code caFile}'s directory alone and no certificate.
     */
    private static int post(int port, Path clientDir, Path caFile) throws Exception {
        return post(port, clientDir, caFile, "/filter", "{}".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    /** POST {@code body} to {@code path}, as {@link #post(int, Path, Path)}. */
    private static int post(int port, Path clientDir, Path caFile, String path, byte[] body) throws Exception {
        javax.net.ssl.SSLContext tls;
        if (clientDir == null) {
            Path d = caFile.getParent();
            tls = javax.net.ssl.SSLContext.getInstance("TLS");
            tls.init(null, new javax.net.ssl.TrustManager[] {new dev.muster.common.tls.CertificateFiles(d.resolve("tls.crt"), d.resolve("tls.key"),
                    caFile).trustManager(false)}, null);
        } else {
            tls = new dev.muster.common.tls.CertificateFiles(clientDir.resolve("tls.crt"), clientDir.resolve("tls.key"), caFile).context(false);
        }
        try (HttpClient client = HttpClient.newBuilder().sslContext(tls).build()) {
            return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
        }
    }

    /** The chart's configuration, with the client Secret's files in place of its mount and the extender at 127.0.0.1. */
    private KubeScheduler chartsKubeScheduler(Path chartConfig, int http, Path client, String name) {
        return c.chartTls().kubeScheduler(chartConfig, http, client, SCHEDULER, name);
    }

    private void upgrade() {
        c.chartTls().upgrade();
    }

    private Map<String, String> secret(String name) {
        return c.chartTls().secret(name);
    }

    private Path secretFiles(String name, Path dir) throws IOException {
        return c.chartTls().secretFiles(name, dir);
    }

    /** As a Secret volume is updated: each file replaced whole (written aside, then moved over the old one). */
    private static void replaceFiles(Path from, Path to) throws IOException {
        for (String f : List.of("ca.crt", "tls.key", "tls.crt")) {
            Path tmp = to.resolve("." + f + ".new");
            Files.copy(from.resolve(f), tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, to.resolve(f), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** A gRPC channel to the extender at 127.0.0.1 whose certificate is checked against the Service name. */
    private static final class Channel implements AutoCloseable {
        final ManagedChannel channel;

        Channel(int port, ChannelCredentials creds) {
            channel = Grpc.newChannelBuilderForAddress("127.0.0.1", port, creds).overrideAuthority(SERVICE).build();
        }

        @Override
        public void close() throws InterruptedException {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
