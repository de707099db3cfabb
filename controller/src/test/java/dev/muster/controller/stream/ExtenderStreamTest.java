package dev.muster.controller.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.rpc.ManagedGrpcServer;
import dev.muster.controller.stream.AllocationStreamClient;
import dev.muster.core.time.BackoffCounter;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.ManualClock;
import dev.muster.core.status.QueueStatus;
import dev.muster.core.status.StatusChangeListener;
import dev.muster.core.status.StatusFolding;
import dev.muster.core.status.StatusKey;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.server.leader.Leadership;
import dev.muster.server.stream.AllocationsService;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The controller's end of the stream over gRPC (in-process): the real reconnecting client and the extender's real
 * Allocations service over a real journal. The stream is cut and resumed past the journal's window: the fold ends
 * with the journal's totals, nothing counted twice.
 */
class ExtenderStreamTest {
    private static final Resources CPU = Resources.builder().set(ResourceNames.CPU, 100).build();
    private static final dev.muster.core.time.Backoff FAST = new dev.muster.core.time.Backoff(Duration.ofMillis(5), Duration.ofMillis(20));
    private final ExecutorService drain = Executors.newSingleThreadExecutor();
    private final String name = InProcessServerBuilder.generateName();
    private final AllocationJournal journal = new AllocationJournal(16, java.time.InstantSource.system());
    private final StatusFolding fold = new StatusFolding(ManualClock.at("2025-01-01T00:00:00Z"), StatusChangeListener.NONE);
    private final AtomicBoolean synced = new AtomicBoolean();
    private final StreamTracker tracker = new StreamTracker(fold, ManualClock.at("2025-01-01T00:00:00Z"), () -> synced.set(true));
    private ManagedGrpcServer server;
    private ExtenderStream stream;

    @AfterEach
    void stop() throws InterruptedException {
        if (stream != null) {
            stream.close();
        }
        if (server != null) {
            server.close();
        }
        drain.shutdownNow();
    }

    private void serve() {
        server = GrpcServers.build(InProcessServerBuilder.forName(name), new AllocationsService(journal, Leadership.ALWAYS, drain)).start();
        server.setServing(true);
    }

    private void follow() {
        stream = new ExtenderStream(new AllocationStreamClient(name, t -> InProcessChannelBuilder.forName(t).build(), tracker, FAST));
        stream.start();
    }

    private void allocate(int i) {
        PodId pod = new PodId("p" + i, "ns", "p" + i);
        journal.append(new AllocationEvent.PodAllocated(pod, new GangKey("ns", "g"), "q", "n1", CPU));
        if (i % 3 == 0) {
            journal.append(new AllocationEvent.PodReleased(pod, new GangKey("ns", "g"), "q", "n1", CPU));
        }
    }

    private Resources allocated() {
        QueueStatus s = (QueueStatus) fold.desired(StatusKey.queue("q"));
        return s == null ? null : s.allocated();
    }

    @Test
    void anEmptyJournalCountsAsSyncedOnceConnected() {
        serve();
        follow();
        await().untilTrue(synced);
        assertThat(tracker.events() + tracker.snapshots()).isZero();
    }

    @Test
    void cutAndResumedPastTheWindowEndsWithTheJournalsTotals() throws InterruptedException {
        fold.observeQueue(QueueSpec.open("q", null));
        fold.observePodGroup(PodGroupSpec.of(new GangKey("ns", "g"), 1, "q"), null);
        for (int i = 0; i < 10; i++) {
            allocate(i);
        }
        serve();
        follow();
        await().until(() -> journal.snapshot().allocatedByQueue().get("q").equals(allocated()));
        assertThat(synced).isTrue();

        server.close(); // the extender goes away; the client keeps retrying
        for (int i = 10; i < 60; i++) { // more than the window while the controller is cut off
            allocate(i);
        }
        serve();
        await().until(() -> journal.snapshot().allocatedByQueue().get("q").equals(allocated()));
        assertThat(stream.client().snapshotsApplied()).as("resumed past the window: a snapshot").isPositive();
        assertThat(fold.stats().duplicateEvents()).isZero();

        for (int i = 60; i < 65; i++) {
            allocate(i);
        }
        await().until(() -> journal.snapshot().allocatedByQueue().get("q").equals(allocated()));
        assertThat(allocated()).isEqualTo(CPU.times(65 - 22));
    }
}
