package dev.muster.server.evict;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.MockKubeApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.PreemptionRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Preemption records in a Lease's annotations, against the fabric8 mock API server (CRUD, resourceVersions enforced). */
class LeasePreemptionRecordsTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private MockKubeApi api;
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private LeasePreemptionRecords records;

    @BeforeEach
    void start() {
        api = MockKubeApi.crud();
        records = new LeasePreemptionRecords(api.clients().requests(), "muster-system", "muster-extender-preemptions", leading::get);
    }

    @AfterEach
    void stop() {
        records.close();
        api.close();
    }

    private static PreemptionRecord decision(String preemptor, String id, int victims) {
        List<PodId> unit = new ArrayList<>();
        for (int i = 0; i < victims; i++) {
            unit.add(new PodId("uid-" + preemptor + "-" + i, "team-b", "low-" + i));
        }
        return new PreemptionRecord(new GangKey("team-a", preemptor), id, List.of(unit, List.of(new PodId("uid-solo", "team-b", "solo"))));
    }

    private String stored(PreemptionRecord r) {
        return records.record(r).toCompletableFuture().orTimeout(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
    }

    private List<PreemptionRecord> read() {
        return records.records().toCompletableFuture().orTimeout(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).join();
    }

    @Test
    void aRecordIsReadBackWholeAndForgottenOnlyByItsOwnId() {
        assertThat(read()).as("no Lease yet").isEmpty();
        PreemptionRecord first = decision("big", "big@1", 3);
        assertThat(stored(first)).isNull();
        assertThat(read()).containsExactly(first);

        PreemptionRecord later = decision("big", "big@2", 2); // a later decision of the same preemptor replaces it
        assertThat(stored(later)).isNull();
        records.forget(first); // the earlier decision's end does not delete the later one's record
        assertThat(read()).containsExactly(later);
        records.forget(later);
        assertThat(read()).isEmpty();
    }

    @Test
    void aProcessThatDoesNotLeadWritesNothing() {
        leading.set(false);
        assertThat(stored(decision("big", "big@1", 1))).contains("does not hold its Lease");
        leading.set(true);
        assertThat(read()).isEmpty();
    }

    @Test
    void manyThreadsRecordingAndForgettingAtOnceLoseNoUpdate() throws Exception {
        int threads = 16;
        int each = 10;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<Set<PreemptionRecord>>> kept = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                kept.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    Set<PreemptionRecord> mine = new HashSet<>();
                    for (int i = 0; i < each; i++) {
                        PreemptionRecord r = decision("g" + thread + "-" + i, "id-" + thread + "-" + i, 1 + i % 3);
                        assertThat(stored(r)).isNull();
                        if (i % 2 == 0) {
                            records.forget(r);
                        } else {
                            mine.add(r);
                        }
                    }
                    return mine;
                }, pool));
            }
            go.countDown();
            Set<PreemptionRecord> expected = new HashSet<>();
            for (var f : kept) {
                expected.addAll(f.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS));
            }
            // every write of this process runs one at a time in the order asked: what is left is exactly what was not forgotten
            assertThat(read().stream().collect(Collectors.toSet())).isEqualTo(expected).hasSize(threads * each / 2);
        } finally {
            pool.shutdownNow();
        }
    }
}
