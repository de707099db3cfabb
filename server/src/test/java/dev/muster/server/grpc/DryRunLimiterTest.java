package dev.muster.server.grpc;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.testing.FakeClock;
import dev.muster.core.testing.RecordingBinder;
import dev.muster.core.testing.RecordingEvictor;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.WhatWouldItTakeRequest;
import dev.muster.proto.v1.WhatWouldItTakeResponse.Verdict;
import dev.muster.server.http.ExtenderMetrics;
import dev.muster.server.leader.Leadership;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.prometheus.client.CollectorRegistry;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The preemption dry run's limits: per caller and per process, refused with RESOURCE_EXHAUSTED saying when to retry. */
class DryRunLimiterTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private GangScheduler scheduler;
    private Server server;
    private ManagedChannel channel;
    private ExtenderGrpc.ExtenderBlockingStub stub;

    /** One node full with gang low (priority 0); gang big (priority 1000) waits. Limits: 1 a second a caller, 3 a process, bursts of 2. */
    @BeforeEach
    void setUp() throws Exception {
        AllocationJournal journal = new AllocationJournal(1024, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(0L)));
        scheduler = new GangScheduler(SchedulerConfig.DEFAULT, new RecordingBinder(), new RecordingEvictor(), DisruptionBudgets.NONE, journal,
                new FakeClock());
        scheduler.upsertNode(node("n0", "4", "16Gi"));
        scheduler.upsertQueue(queue("default"));
        scheduler.upsertPodGroup(podGroup("ml", "low", 2, "default"));
        scheduler.upsertPodGroup(podGroup("ml", "big", 2, "default"));
        for (int i = 0; i < 2; i++) {
            scheduler.upsertPod(pod("low-" + i).ns("ml").gang("low").requests("2", "1Gi").priority(0).on("n0").build());
            scheduler.upsertPod(pod("big-" + i).ns("ml").gang("big").requests("2", "1Gi").priority(1000).build());
        }
        scheduler.markSynced();
        String name = InProcessServerBuilder.generateName();
        ExtenderGrpcService service = new ExtenderGrpcService(scheduler, Leadership.ALWAYS, new ExtenderMetrics(new CollectorRegistry(), scheduler, journal));
        server = InProcessServerBuilder.forName(name).directExecutor()
                .addService(ServerInterceptors.intercept(service, new DryRunLimiter(new DryRunLimiter.Limit(1, 3, 2), now::get)))
                .build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        stub = ExtenderGrpc.newBlockingStub(channel);
    }

    @AfterEach
    void tearDown() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    private Verdict ask() {
        return stub.whatWouldItTake(WhatWouldItTakeRequest.newBuilder().setGang(GangRef.newBuilder().setNamespace("ml").setName("big")).build())
                .getVerdict();
    }

    @Test
    void aCallerGetsItsBurstThenIsToldWhenToRetryAndIsAnsweredAgainThen() {
        assertThat(ask()).isEqualTo(Verdict.VERDICT_PREEMPT);
        assertThat(ask()).isEqualTo(Verdict.VERDICT_PREEMPT);

        assertThatThrownBy(this::ask).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(e.getStatus().getDescription()).contains("limited to 1 a second per caller (--dry-run-rate, bursts of 2)")
                    .endsWith("retry in 1.0 s");
            assertThat(e.getTrailers().get(DryRunLimiter.RETRY_AFTER)).isEqualTo("1000");
        });

        now.addAndGet(1_000_000_000L);
        assertThat(ask()).as("a second later: one more").isEqualTo(Verdict.VERDICT_PREEMPT);
        assertThatThrownBy(this::ask).isInstanceOf(StatusRuntimeException.class);
    }

    @Test
    void everyCallerHasItsOwnLimitAndAllTogetherTheProcesss() {
        DryRunLimiter limiter = new DryRunLimiter(new DryRunLimiter.Limit(1, 3, 2), now::get);
        assertThat(limiter.take("CN=alice")).isNull();
        assertThat(limiter.take("CN=alice")).isNull();
        assertThat(limiter.take("CN=alice")).as("alice's burst is spent").isNotNull();
        assertThat(limiter.take("CN=bob")).as("bob has his own").isNull();
        assertThat(limiter.take("CN=bob")).as("the process's burst (3) is spent").isNotNull()
                .satisfies(r -> assertThat(r.message("CN=bob")).contains("limited to 3 a second for all callers (--dry-run-process-rate)"));
        now.addAndGet(400_000_000L); // the process refills 3 a second: one more after 1/3 s; bob's own bucket is not empty
        assertThat(limiter.take("CN=bob")).isNull();
        assertThat(limiter.take("CN=carol")).as("no token left for anyone").isNotNull();
    }

    @Test
    void otherMethodsAreNotLimited() {
        for (int i = 0; i < 5; i++) {
            assertThatThrownBy(() -> stub.filter(dev.muster.proto.v1.FilterRequest.newBuilder().build())).as("refused for what it is, not limited")
                    .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        }
    }

    @Test
    void limitsMustBePositive() {
        assertThatThrownBy(() -> new DryRunLimiter.Limit(0, 5, 5)).hasMessageContaining("must be positive");
        assertThatThrownBy(() -> new DryRunLimiter.Limit(1, 5, 0)).hasMessageContaining("burst at least 1");
    }
}
