package dev.muster.controller.queues;

import static dev.muster.core.status.FoldDriver.cpu;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueState;
import dev.muster.core.status.FoldDriver;
import dev.muster.core.status.StatusChangeFanout;
import dev.muster.core.model.GangState;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.GetGangRequest;
import dev.muster.proto.v1.GetQueueRequest;
import dev.muster.proto.v1.ListQueuesRequest;
import dev.muster.proto.v1.QueueInfo;
import dev.muster.proto.v1.QueuesGrpc;
import dev.muster.proto.v1.WatchQueuesRequest;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class QueuesServiceTest {
    private final StatusChangeFanout fanout = new StatusChangeFanout();
    private final FoldDriver d = new FoldDriver(fanout);
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final QueueWatchHub hub = new QueueWatchHub(QueueViews.of(d.fold), executor);
    private Server server;
    private ManagedChannel channel;
    private QueuesGrpc.QueuesBlockingStub blocking;
    private QueuesGrpc.QueuesStub async;

    @BeforeEach
    void start() throws Exception {
        fanout.add(hub);
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).directExecutor()
                .addService(new QueuesService(QueueViews.of(d.fold), hub)).build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        blocking = QueuesGrpc.newBlockingStub(channel);
        async = QueuesGrpc.newStub(channel);
    }

    @AfterEach
    void stop() {
        channel.shutdownNow();
        server.shutdownNow();
        executor.shutdownNow();
    }

    @Test
    void getAndListServeTheFoldedState() {
        d.queue("a").queue("b", QueueState.CLOSED).podGroup("pg", 1, "b").pods("pg", 1, PodPhase.RUNNING, true)
                .allocate("pg-0", "pg", "b", cpu(1500));
        QueueInfo b = blocking.get(GetQueueRequest.newBuilder().setName("b").build());
        assertThat(b.getState()).isEqualTo("Closing");
        assertThat(b.getRunning()).isEqualTo(1);
        assertThat(b.getAllocated().getAmountsMap()).containsEntry("cpu", 1500L);
        assertThat(b.hasCapability()).as("unlimited").isFalse();
        assertThat(b.hasFairShare()).as("no share reported yet").isFalse();
        d.send(new dev.muster.core.stream.AllocationEvent.QueueShareChanged("b", cpu(1000), cpu(500)));
        QueueInfo shared = blocking.get(GetQueueRequest.newBuilder().setName("b").build());
        assertThat(shared.getFairShare().getAmountsMap()).containsEntry("cpu", 1000L);
        assertThat(shared.getBorrowed().getAmountsMap()).containsEntry("cpu", 500L);
        assertThat(blocking.list(ListQueuesRequest.getDefaultInstance()).getQueuesList()).extracting(QueueInfo::getName)
                .containsExactly("a", "b");
    }

    @Test
    void aQueueShowsWhatReclaimTookAndGaveAndWhatPriorityPreempted() {
        d.queue("a").queue("b").podGroup("low", 2, "a").pods("low", 2, PodPhase.RUNNING, true).podGroup("big", 2, "b");
        QueueInfo before = blocking.get(GetQueueRequest.newBuilder().setName("a").build());
        assertThat(before.getPreemptions().getLostToReclaimPods()).isZero();
        List<dev.muster.core.preempt.Victim> victims = List.of(
                new dev.muster.core.preempt.Victim(new dev.muster.core.model.PodId("low-0", "ns", "low-0"), FoldDriver.key("low"), "a", 1, "n1", cpu(2000)),
                new dev.muster.core.preempt.Victim(new dev.muster.core.model.PodId("low-1", "ns", "low-1"), FoldDriver.key("low"), "a", 1, "n2", cpu(2000)));
        d.send(new dev.muster.core.stream.AllocationEvent.PreemptionDecided(FoldDriver.key("big"), "b", 5,
                dev.muster.core.preempt.PreemptionKind.RECLAIM, victims, 2));
        var a = blocking.get(GetQueueRequest.newBuilder().setName("a").build()).getPreemptions();
        assertThat(a.getLostToReclaimPods()).isEqualTo(2);
        assertThat(a.getLostToReclaim().getAmountsMap()).containsEntry("cpu", 4000L);
        assertThat(a.getWonByReclaimPods()).isZero();
        var b = blocking.get(GetQueueRequest.newBuilder().setName("b").build()).getPreemptions();
        assertThat(b.getWonByReclaimPods()).isEqualTo(2);
        assertThat(b.getWonByReclaim().getAmountsMap()).containsEntry("cpu", 4000L);
        d.send(new dev.muster.core.stream.AllocationEvent.PreemptionDecided(FoldDriver.key("big"), "a", 5,
                dev.muster.core.preempt.PreemptionKind.PRIORITY, victims.subList(0, 1), 1));
        assertThat(blocking.get(GetQueueRequest.newBuilder().setName("a").build()).getPreemptions().getPreemptedPods()).isEqualTo(1);
    }

    @Test
    void getGangExplainsWhyAJobIsNotStarting() {
        d.queue("q").podGroup("pg", 3, "q").pods("pg", 3, PodPhase.PENDING, false)
                .gang("pg", GangState.UNSCHEDULABLE, "needs 3×(4 cpu, 16Gi), fits 2");
        var g = blocking.getGang(GetGangRequest.newBuilder().setGang(GangRef.newBuilder().setNamespace("ns").setName("pg")).build());
        assertThat(g.getState()).isEqualTo(dev.muster.proto.v1.GangState.GANG_STATE_UNSCHEDULABLE);
        assertThat(g.getReason()).isEqualTo("needs 3×(4 cpu, 16Gi), fits 2");
        assertThat(g.getPhase()).isEqualTo("Pending");
        assertThat(g.getMinMember()).isEqualTo(3);
    }

    @Test
    void listGangsServesEveryGangAsGetGangDoes() {
        d.queue("q").podGroup("pg", 3, "q").pods("pg", 3, PodPhase.PENDING, false)
                .gang("pg", GangState.UNSCHEDULABLE, "needs 3×(4 cpu, 16Gi), fits 2")
                .podGroup("other", 1, "q");
        var all = blocking.listGangs(dev.muster.proto.v1.ListGangsRequest.getDefaultInstance()).getGangsList();
        var pg = blocking.getGang(GetGangRequest.newBuilder().setGang(GangRef.newBuilder().setNamespace("ns").setName("pg")).build());

        assertThat(all).extracting(x -> x.getGang().getName()).containsExactlyInAnyOrder("pg", "other");
        assertThat(all).contains(pg);
    }

    @Test
    void badAndUnknownRequestsAreNamed() {
        assertThatThrownBy(() -> blocking.get(GetQueueRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("name");
                });
        assertThatThrownBy(() -> blocking.get(GetQueueRequest.newBuilder().setName("nope").build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
                    assertThat(e.getStatus().getDescription()).contains("nope");
                });
        assertThatThrownBy(() -> blocking.getGang(GetGangRequest.newBuilder().setGang(GangRef.newBuilder().setName("x")).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> blocking.getGang(GetGangRequest.newBuilder().setGang(GangRef.newBuilder().setNamespace("ns").setName("x")).build()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND));
    }

    /** Collects what a Watch delivers; the client asks for messages by hand. */
    private static final class Watcher implements ClientResponseObserver<WatchQueuesRequest, QueueInfo> {
        private final List<QueueInfo> received = new ArrayList<>();
        private final int initialRequest;
        private volatile ClientCallStreamObserver<WatchQueuesRequest> call;

        Watcher(int initialRequest) {
            this.initialRequest = initialRequest;
        }

        @Override
        public void beforeStart(ClientCallStreamObserver<WatchQueuesRequest> requestStream) {
            call = requestStream;
            requestStream.disableAutoRequestWithInitial(initialRequest);
        }

        @Override
        public synchronized void onNext(QueueInfo value) {
            received.add(value);
            if (initialRequest > 0) {
                call.request(1);
            }
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}

        synchronized List<QueueInfo> received() {
            return List.copyOf(received);
        }

        void request(int n) {
            call.request(n);
        }

        void cancel() {
            call.cancel("done", null);
        }
    }

    @Test
    void watchSendsTheCurrentStateThenEachChange() {
        d.queue("a").queue("b");
        Watcher w = new Watcher(1);
        async.watch(WatchQueuesRequest.getDefaultInstance(), w);
        await().until(() -> w.received().size() == 2);
        assertThat(w.received()).extracting(QueueInfo::getName).containsExactly("a", "b");
        d.podGroup("pg", 1, "b");
        await().until(() -> w.received().size() == 3);
        assertThat(w.received().get(2).getName()).isEqualTo("b");
        assertThat(w.received().get(2).getPending()).isEqualTo(1);
        d.deleteQueue("a");
        await().until(() -> w.received().size() == 4);
        assertThat(w.received().get(3)).isEqualTo(QueueInfo.newBuilder().setName("a").setDeleted(true).build());
        w.cancel();
        await().until(() -> hub.subscribers() == 0);
    }

    @Test
    void watchOfOneQueueIgnoresTheOthers() {
        d.queue("a").queue("b");
        Watcher w = new Watcher(1);
        async.watch(WatchQueuesRequest.newBuilder().setName("b").build(), w);
        await().until(() -> w.received().size() == 1);
        d.podGroup("x", 1, "a").podGroup("y", 1, "b");
        await().until(() -> w.received().size() == 2);
        assertThat(w.received()).extracting(QueueInfo::getName).containsExactly("b", "b");
    }

    @Test
    void aSubscriberThatDoesNotReadGetsOnlyTheLatestValuePerQueue() {
        d.queue("a").queue("b").queue("c");
        Watcher w = new Watcher(0); // reads nothing yet
        async.watch(WatchQueuesRequest.getDefaultInstance(), w);
        for (int i = 0; i < 1000; i++) { // many changes while the subscriber is not reading
            d.allocate("p" + i, "g", List.of("a", "b", "c").get(i % 3), cpu(1));
        }
        w.request(100);
        await().until(() -> w.received().size() == 3);
        assertThat(w.received()).extracting(q -> q.getName() + "=" + q.getAllocated().getAmountsMap().get("cpu"))
                .containsExactlyInAnyOrder("a=334", "b=333", "c=333");
    }
}
