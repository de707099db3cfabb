package dev.muster.server;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.leader.InMemoryLeaseStore;
import dev.muster.common.leader.LeaderCallbacks;
import dev.muster.common.leader.LeaderElectionConfig;
import dev.muster.common.leader.LeaderElector;
import dev.muster.common.leader.LeaderIdentity;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.testing.RecordingBinder;
import dev.muster.server.leader.Leadership;
import dev.muster.testsupport.extender.ExtenderClient;
import io.prometheus.client.CollectorRegistry;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two extender replicas on one Lease, as the chart runs them (same ports, different pod IPs — here
 * 127.0.0.2 and 127.0.0.3): exactly one decides; the standby forwards kube-scheduler's verbs to it;
 * when the leader stops, the other takes over and decides itself.
 */
class TwoExtendersOneLeaseTest {
    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-11-21T12:00:00Z"));
    private final InstantSource clock = now::get;
    private final List<Replica> started = new ArrayList<>();

    private static int freePort(String host) throws Exception {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(host, 0));
            return s.getLocalPort();
        }
    }

    private record Replica(LeaderElector elector, ExtenderProcess process, CollectorRegistry registry, ExtenderClient client) {
        String metrics() {
            return new String(client.get("/metrics").body());
        }
    }

    private Replica replica(InMemoryLeaseStore store, String ip, int httpPort, int grpcPort) throws Exception {
        AtomicReference<ExtenderProcess> ref = new AtomicReference<>();
        LeaderElector elector = new LeaderElector(store, new LeaderIdentity("extender-" + httpPort, ip, httpPort, grpcPort).toString(), LeaderElectionConfig.DEFAULTS, clock,
                new LeaderCallbacks() {
                    @Override
                    public void onStartedLeading() {
                        Optional.ofNullable(ref.get()).ifPresent(ExtenderProcess::leadershipChanged);
                    }

                    @Override
                    public void onStoppedLeading() {
                        Optional.ofNullable(ref.get()).ifPresent(ExtenderProcess::leadershipChanged);
                    }
                });
        CollectorRegistry registry = new CollectorRegistry();
        ExtenderProcess.Settings s = new ExtenderProcess.Settings(ip, httpPort, null, 0, grpcPort, Optional.empty(), SchedulerConfig.DEFAULT,
                ServerDefaults.MAX_BODY_BYTES, 1024, Duration.ofMillis(100), false);
        ExtenderProcess p = new ExtenderProcess(s, new RecordingBinder(), Leadership.of(elector), registry);
        ref.set(p);
        // both replicas watch the same cluster: their ledgers are equally warm
        for (int i = 1; i <= 3; i++) {
            p.scheduler().upsertNode(node("node-" + i, "8", "32Gi"));
        }
        p.scheduler().upsertQueue(queue("default"));
        p.scheduler().markSynced();
        Replica r = new Replica(elector, p, registry, new ExtenderClient("http://" + ip + ":" + httpPort, Duration.ofSeconds(30)));
        started.add(r);
        return r;
    }

    /** A new pod, shown to every replica (they watch the same cluster), filtered through {@code r}. */
    private String filterVia(Replica r) {
        ExtenderClient.PodSpec pod = new ExtenderClient.PodSpec("web", "default", "web-uid-" + System.nanoTime(), Map.of("cpu", "1", "memory", "1Gi"),
                Map.of(), "muster");
        for (Replica each : started) {
            each.process().scheduler().upsertPod(new dev.muster.core.model.Pod(new dev.muster.core.model.PodId(pod.uid(), pod.namespace(), pod.name()),
                    "1", dev.muster.core.testing.Fixtures.req("1", "1Gi"), null, "", 0, null, null));
        }
        ExtenderClient.FilterAnswer f = r.client().filter(ExtenderClient.podJson(pod), List.of("node-1", "node-2", "node-3"));
        return f.error().isEmpty() ? String.join(",", f.nodeNames()) : "error: " + f.error();
    }

    /** Two replicas on one Lease, each on its own free ports; {@code a} is elected. */
    private Replica[] aElected(String ipA, String ipB) throws Exception {
        InMemoryLeaseStore store = new InMemoryLeaseStore("muster-extender");
        Replica a = replica(store, ipA, freePort(ipA), freePort(ipA));
        Replica b = replica(store, ipB, freePort(ipB), freePort(ipB));
        return elect(a, b);
    }

    /** {@code a} steps first and wins the Lease; {@code b} follows it. */
    private static Replica[] elect(Replica a, Replica b) {
        a.elector().tick();
        b.elector().tick();
        assertThat(a.elector().isLeader()).isTrue();
        assertThat(b.elector().isLeader()).isFalse();
        return new Replica[] {a, b};
    }

    /** kube-scheduler reaches the standby: the answer comes from the leader's ledger. */
    private void decidedByThroughForwarding(Replica leader, Replica standby) {
        assertThat(filterVia(standby)).isEqualTo("node-1");
        assertThat(leader.metrics()).contains("muster_extender_decisions_total{verb=\"filter\",outcome=\"fit\",} 1.0");
        assertThat(standby.metrics()).contains("outcome=\"forwarded\",} 1.0").doesNotContain("outcome=\"fit\"");
    }

    @Test
    void exactlyOneDecidesAndTheOtherTakesOverWhenItStops() throws Exception {
        InMemoryLeaseStore store = new InMemoryLeaseStore("muster-extender");
        int http = freePort("127.0.0.2");
        int grpc = freePort("127.0.0.2");
        Replica a = replica(store, "127.0.0.2", http, grpc);
        Replica b = replica(store, "127.0.0.3", http, grpc);
        elect(a, b);
        decidedByThroughForwarding(a, b);

        // the leader stops (releases the Lease); the standby takes over at its next step
        a.elector().close();
        a.process().close();
        now.set(now.get().plusSeconds(3));
        b.elector().tick();
        assertThat(b.elector().isLeader()).isTrue();
        assertThat(filterVia(b)).isEqualTo("node-1");
        assertThat(b.metrics()).contains("muster_extender_decisions_total{verb=\"filter\",outcome=\"fit\",} 1.0");
    }

    @Test
    void twoReplicasOnOneHostReachEachOtherAtThePortsTheLeaseNames() throws Exception {
        Replica[] r = aElected("127.0.0.2", "127.0.0.2");
        // "the leader's IP + my own port" would be the standby itself; the Lease names the leader's port
        decidedByThroughForwarding(r[0], r[1]);
    }

    @Test
    void aLeaderWhoseRenewalIsOverdueAnswersAClearErrorAndNothingLoops() throws Exception {
        Replica[] r = aElected("127.0.0.2", "127.0.0.3");
        Replica a = r[0];
        Replica b = r[1];
        // a stalls past its renew deadline: it no longer leads, yet the Lease still names it and b still follows it
        now.set(now.get().plus(LeaderElectionConfig.DEFAULTS.renewDeadline()));
        assertThat(a.elector().isLeader()).isFalse();
        assertThat(a.elector().leaderIdentity()).contains(a.elector().identity());

        assertThat(filterVia(a)).startsWith("error: this muster extender is a standby and the Lease still names this replica ("
                + a.elector().identity() + ")");
        assertThat(filterVia(b)).startsWith("error: forwarding loop refused: " + b.elector().identity() + " forwarded this request");
        assertThat(a.metrics()).contains("outcome=\"no-leader\",} 1.0").contains("outcome=\"forward-loop\",} 1.0")
                .doesNotContain("outcome=\"forwarded\"");
        assertThat(b.metrics()).contains("outcome=\"forwarded\",} 1.0");

        // a renews: it decides again, and b's requests reach it
        a.elector().tick();
        assertThat(filterVia(b)).isEqualTo("node-1");
    }

    @AfterEach
    void closeReplicas() {
        for (Replica r : started) {
            r.elector().close();
            r.process().close();
        }
    }
}
