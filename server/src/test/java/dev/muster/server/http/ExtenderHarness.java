package dev.muster.server.http;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.queue;

import dev.muster.common.leader.LeaderIdentity;
import dev.muster.common.ops.OpsEndpoints;
import dev.muster.core.model.Node;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.testing.FakeClock;
import dev.muster.core.testing.RecordingBinder;
import dev.muster.server.leader.Leadership;
import dev.muster.testsupport.extender.ExtenderClient;
import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import dev.muster.common.tls.CertificateFiles;

/** A real extender HTTP server on loopback around a GangScheduler with a fake clock and a recording binder. */
final class ExtenderHarness implements AutoCloseable {
    final FakeClock clock = new FakeClock();
    final RecordingBinder binder = new RecordingBinder();
    final AllocationJournal journal = new AllocationJournal(1 << 16, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(0L)));
    final GangScheduler scheduler;
    final CollectorRegistry registry = new CollectorRegistry();
    final ExtenderHttpServer server;
    final ExtenderClient client;
    final List<String> nodeNames = new ArrayList<>();

    ExtenderHarness() throws Exception {
        this(SchedulerConfig.DEFAULT, null, Leadership.ALWAYS, 1 << 20);
    }

    ExtenderHarness(SchedulerConfig config, CertificateFiles tls, Leadership gate, long maxBody) throws Exception {
        this(config, tls, gate, maxBody, 0);
    }

    /** On {@code 127.0.0.1:port} (0: any free port). */
    ExtenderHarness(SchedulerConfig config, CertificateFiles tls, Leadership gate, long maxBody, int port) throws Exception {
        this(config, tls, dev.muster.common.tls.CallerRoles.ANY, gate, maxBody, port);
    }

    /** With client certificates told apart by {@code callers}. */
    ExtenderHarness(SchedulerConfig config, CertificateFiles tls, dev.muster.common.tls.CallerRoles callers, Leadership gate, long maxBody,
                    int port) throws Exception {
        scheduler = new GangScheduler(config, binder, journal, clock);
        ExtenderMetrics metrics = new ExtenderMetrics(registry, scheduler, journal);
        OpsEndpoints ops = new OpsEndpoints(registry, () -> scheduler.isSynced() ? null : "first sync not finished");
        server = new ExtenderHttpServer(new InetSocketAddress("127.0.0.1", port), tls, callers, new ExtenderVerbs(scheduler, Duration.ofMinutes(5)),
                metrics, ops, gate, new LeaderForwarder(null, Duration.ofSeconds(30)),
                () -> scheduler.isSynced() ? null : "first sync not finished", maxBody);
        client = new ExtenderClient((tls == null ? "http" : "https") + "://127.0.0.1:" + server.port(), Duration.ofMinutes(5));
        scheduler.upsertQueue(queue("default"));
    }

    /**
     * A scheduler without a server, for tests that call {@link ExtenderVerbs} directly: the default configuration, a
     * recording binder, a fake clock, the {@code default} queue and {@code nodes} of 4 cpu and 8Gi each; not yet synced.
     */
    static GangScheduler scheduler(String... nodes) {
        GangScheduler scheduler = new GangScheduler(SchedulerConfig.DEFAULT, new RecordingBinder(),
                new AllocationJournal(1024, java.time.InstantSource.system()), new FakeClock());
        scheduler.upsertQueue(queue("default"));
        for (String n : nodes) {
            scheduler.upsertNode(node(n, "4", "8Gi"));
        }
        return scheduler;
    }

    /**
     * The cluster shows the pod of each filter request, pending and of this extender's profile (an informer event), as it
     * has before kube-scheduler asks about it: Muster's verbs act only on pods the cluster showed.
     */
    ExtenderHarness seen(byte[]... filterRequests) {
        for (byte[] body : filterRequests) {
            dev.muster.server.http.wire.WirePod pod = dev.muster.server.http.wire.WireDecoder.decodeExtenderArgs(body).pod();
            scheduler.upsertPod(pod.pod().withNode(null).asInCluster(scheduler.config().schedulerName(), false));
        }
        return this;
    }

    ExtenderHarness nodes(Node... nodes) {
        for (Node n : nodes) {
            scheduler.upsertNode(n);
            nodeNames.add(n.name());
        }
        return this;
    }

    ExtenderHarness uniformNodes(int n, String cpu, String mem) {
        for (int i = 0; i < n; i++) {
            nodes(node(String.format("node-%04d", i), cpu, mem));
        }
        return this;
    }

    String url() {
        return "http://127.0.0.1:" + server.port();
    }

    /**
     * The Lease identity of a replica on 127.0.0.1 serving its verbs on {@code httpPort}. The harness serves no gRPC:
     * the gRPC port repeats the HTTP port, so two replicas' identities never name the same address.
     */
    static LeaderIdentity identity(String name, int httpPort) {
        return new LeaderIdentity(name, "127.0.0.1", httpPort, httpPort);
    }

    /** A standby on 127.0.0.1:{@code httpPort} that sees {@code holder} in the Lease (null: none). */
    static Leadership standby(String name, int httpPort, String holder) {
        return Leadership.of(identity(name, httpPort), () -> false, () -> Optional.ofNullable(holder));
    }

    /** A free loopback port, for a replica whose identity must name its port before it listens. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Everything a rejected request must leave untouched. */
    String fingerprint() {
        return scheduler.ledger().toString()
                + "|" + journal.lastSequence() + "|" + scheduler.stats();
    }

    static byte[] fixture(String path) {
        try {
            return Files.readAllBytes(Path.of(Objects.requireNonNull(
                    ExtenderHarness.class.getResource("/fixtures/kube-scheduler-v1.36/" + path), path).toURI()));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.close();
    }
}
