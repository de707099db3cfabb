package dev.muster.server.grpc;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.rpc.LeaderRedirect;
import dev.muster.common.leader.LeaderIdentity;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.testing.FakeClock;
import dev.muster.core.testing.RecordingBinder;
import dev.muster.proto.v1.BindRequest;
import dev.muster.proto.v1.BindResponse;
import dev.muster.proto.v1.Container;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.FilterRequest;
import dev.muster.proto.v1.FilterResponse;
import dev.muster.proto.v1.PodRef;
import dev.muster.proto.v1.PodSpec;
import dev.muster.proto.v1.PrioritizeRequest;
import dev.muster.proto.v1.PrioritizeResponse;
import dev.muster.server.http.ExtenderMetrics;
import dev.muster.server.leader.Leadership;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.prometheus.client.CollectorRegistry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every Extender RPC over the in-process transport (direct executor), including the not-leader redirect. */
class ExtenderGrpcInProcessTest {
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private final RecordingBinder binder = new RecordingBinder();
    private GangScheduler scheduler;
    private Server server;
    private ManagedChannel channel;
    private ExtenderGrpc.ExtenderBlockingStub stub;

    @BeforeEach
    void setUp() throws Exception {
        AllocationJournal journal = new AllocationJournal(1024, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(0L)));
        scheduler = new GangScheduler(SchedulerConfig.DEFAULT, binder, journal, new FakeClock());
        scheduler.upsertNode(node("n0", "8", "16Gi"));
        scheduler.upsertNode(node("n1", "8", "16Gi"));
        scheduler.upsertQueue(queue("default"));
        scheduler.upsertPodGroup(podGroup("default", "pair", 2, "default"));
        scheduler.markSynced();
        String name = InProcessServerBuilder.generateName();
        Leadership gate = Leadership.of(new LeaderIdentity("muster-1", "10.0.0.1", 8888, 9090), leading::get,
                () -> Optional.of("muster-0_http=8888,grpc=9090_10.0.0.9"));
        server = InProcessServerBuilder.forName(name).directExecutor()
                .addService(new ExtenderGrpcService(scheduler, gate, new ExtenderMetrics(new CollectorRegistry(), scheduler, journal)))
                .build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        stub = ExtenderGrpc.newBlockingStub(channel);
    }

    @AfterEach
    void tearDown() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    private static PodSpec pod(String name, String gang) {
        PodSpec.Builder b = PodSpec.newBuilder().setPod(PodRef.newBuilder().setUid(name + "-uid").setNamespace("default").setName(name))
                .setResourceVersion("1").addContainers(Container.newBuilder().putRequests("cpu", "2").putRequests("memory", "2Gi"));
        if (gang != null) {
            b.putAnnotations("scheduling.k8s.io/group-name", gang);
        }
        return b.build();
    }

    @Test
    void filterPrioritizeAndBindASinglePod() {
        scheduler.upsertPod(dev.muster.core.testing.Fixtures.pod("web").uid("web-uid").requests("2", "2Gi").build()); // the cluster shows it
        FilterResponse soft = stub.filter(FilterRequest.newBuilder().setPod(pod("web", null)).addAllNodeNames(List.of("n0", "n1"))
                .setSoftPreferences(true).build());
        assertThat(soft.getNodeNamesList()).as("the caller scores: every node that fits").containsExactly("n0", "n1");
        FilterResponse f = stub.filter(FilterRequest.newBuilder().setPod(pod("web", null)).addAllNodeNames(List.of("n0", "n1")).build());
        assertThat(f.getNodeNamesList()).as("Muster picks; equal nodes: the first").containsExactly("n0");
        assertThat(f.getFailedNodesMap()).isEmpty();
        PrioritizeResponse p = stub.prioritize(PrioritizeRequest.newBuilder().setPod(pod("web", null)).addAllNodeNames(soft.getNodeNamesList()).build());
        assertThat(p.getScoresList()).hasSize(2).allSatisfy(s -> assertThat(s.getScore()).isBetween(0L, 10L));
        BindResponse b = stub.bind(BindRequest.newBuilder().setPod(pod("web", null).getPod()).setNode("n0").build());
        assertThat(b.getError()).isEmpty();
        assertThat(binder.bound()).containsEntry("web-uid", "n0");
    }

    @Test
    void aGangBindsOnlyWhenBothMembersArrive() throws Exception {
        for (String m : List.of("pair-0", "pair-1")) {
            scheduler.upsertPod(dev.muster.core.testing.Fixtures.pod(m).uid(m + "-uid").gang("pair").requests("2", "2Gi").build());
        }
        ExtenderGrpc.ExtenderFutureStub async = ExtenderGrpc.newFutureStub(channel);
        String n0 = stub.filter(FilterRequest.newBuilder().setPod(pod("pair-0", "pair")).addAllNodeNames(List.of("n0", "n1")).build()).getNodeNames(0);
        var first = async.bind(BindRequest.newBuilder().setPod(pod("pair-0", "pair").getPod()).setNode(n0).build());
        assertThat(first.isDone()).isFalse();
        String n1 = stub.filter(FilterRequest.newBuilder().setPod(pod("pair-1", "pair")).addAllNodeNames(List.of("n0", "n1")).build()).getNodeNames(0);
        BindResponse second = stub.bind(BindRequest.newBuilder().setPod(pod("pair-1", "pair").getPod()).setNode(n1).build());
        assertThat(second.getError()).isEmpty();
        assertThat(first.get(10, TimeUnit.SECONDS).getError()).isEmpty();
        assertThat(binder.bound()).hasSize(2);
    }

    @Test
    void aFilterForAPodTheInformerDeliversLaterWaitsForItWithoutAThreadAndAGhostIsAnErrorCounted() throws Exception {
        CollectorRegistry registry = new CollectorRegistry();
        ExtenderMetrics metrics = new ExtenderMetrics(registry, scheduler, new AllocationJournal(16, java.time.InstantSource.system()));
        String name = InProcessServerBuilder.generateName();
        Server waiting = InProcessServerBuilder.forName(name).directExecutor()
                .addService(new ExtenderGrpcService(scheduler, Leadership.ALWAYS, metrics, java.time.Duration.ofMinutes(5))).build().start();
        ManagedChannel ch = InProcessChannelBuilder.forName(name).directExecutor().build();
        try {
            var answer = ExtenderGrpc.newFutureStub(ch).filter(FilterRequest.newBuilder().setPod(pod("late", null)).addAllNodeNames(List.of("n0", "n1")).build());
            org.awaitility.Awaitility.await("the filter waits for its pod").until(() -> scheduler.podsAwaited() == 1);
            assertThat(answer.isDone()).isFalse();
            scheduler.upsertPod(dev.muster.core.testing.Fixtures.pod("late").uid("late-uid").requests("2", "2Gi").build()); // the informer, later
            assertThat(answer.get(10, TimeUnit.SECONDS).getNodeNamesList()).containsExactly("n0");
            assertThat(metrics.filterErrors().waits("seen")).isOne();
            assertThat(metrics.filterErrors().count("not_seen")).isZero();
        } finally {
            ch.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            waiting.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }

        ExtenderMetrics quick = new ExtenderMetrics(new CollectorRegistry(), scheduler, new AllocationJournal(16, java.time.InstantSource.system()));
        String name2 = InProcessServerBuilder.generateName();
        Server ghostServer = InProcessServerBuilder.forName(name2).directExecutor()
                .addService(new ExtenderGrpcService(scheduler, Leadership.ALWAYS, quick, java.time.Duration.ofMillis(1))).build().start();
        ManagedChannel ch2 = InProcessChannelBuilder.forName(name2).directExecutor().build();
        try {
            assertThatThrownBy(() -> ExtenderGrpc.newBlockingStub(ch2).filter(FilterRequest.newBuilder().setPod(pod("ghost", null))
                    .addAllNodeNames(List.of("n0")).build())).isInstanceOf(StatusRuntimeException.class)
                    .hasMessageContaining("FAILED_PRECONDITION").hasMessageContaining("has not been seen in the cluster by muster");
            assertThat(quick.filterErrors().count("not_seen")).isOne();
        } finally {
            ch2.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            ghostServer.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aStandbyAnswersUnavailableWithTheLeaderAddress() {
        leading.set(false);
        assertThatThrownBy(() -> stub.filter(FilterRequest.newBuilder().setPod(pod("web", null)).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                    assertThat(LeaderRedirect.leaderAddress(e.getStatus(), e.getTrailers())).hasValue("10.0.0.9:9090");
                });
    }
}
