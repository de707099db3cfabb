package dev.muster.server.patch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.server.patch.PacedPodPatches.Requeue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PacedPodPatchesTest {
    private record Work(String pod, int thread, int seq) {}

    @Test
    void manyThreadsOfferingOneSenderNothingLostNothingSentTwiceAtOnceAndWhatWaitsIsBoundedByThePods() throws Exception {
        int threads = 8;
        int offersEach = 3_000;
        int pods = 40;
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger mostInFlight = new AtomicInteger();
        Set<String> podsInFlight = ConcurrentHashMap.newKeySet();
        List<String> overlaps = new ArrayList<>();
        ConcurrentLinkedQueue<Work> sent = new ConcurrentLinkedQueue<>();
        PacedPodPatches<Work> patches = new PacedPodPatches<>("test-sender", Integer.MAX_VALUE, Integer.MAX_VALUE, Requeue.TO_THE_BACK,
                w -> {
                    mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    if (!podsInFlight.add(w.pod())) {
                        synchronized (overlaps) {
                            overlaps.add(w.pod());
                        }
                    }
                    sent.add(w);
                    podsInFlight.remove(w.pod());
                    inFlight.decrementAndGet();
                }, true);
        ConcurrentLinkedQueue<Work> replaced = new ConcurrentLinkedQueue<>();
        AtomicInteger mostPending = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> offering = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                offering.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < offersEach; i++) {
                        PacedPodPatches.Offered<Work> o = patches.offer("pod-" + ((i * 7 + thread) % pods), new Work("pod-" + ((i * 7 + thread) % pods), thread, i));
                        assertThat(o.accepted()).isTrue();
                        assertThat(o.dropped()).isEmpty();
                        if (o.replaced() != null) {
                            replaced.add(o.replaced());
                        }
                        mostPending.accumulateAndGet(patches.pending(), Math::max);
                    }
                    return null;
                }));
            }
            for (Future<?> f : offering) {
                f.get(); // an assertion failed in an offering thread fails here
            }
            int offered = threads * offersEach;
            await().atMost(Duration.ofMinutes(1)).until(() -> sent.size() + replaced.size() == offered);

            assertThat(patches.pending()).isZero();
            assertThat(mostPending.get()).isLessThanOrEqualTo(pods);
            assertThat(mostInFlight.get()).isEqualTo(1);
            assertThat(overlaps).isEmpty();
            Set<Work> all = new HashSet<>(sent);
            assertThat(all).hasSize(sent.size()); // nothing sent twice
            all.addAll(replaced);
            assertThat(all).hasSize(offered); // each offer sent or replaced by a later one of its pod, never both, never lost
        } finally {
            pool.shutdownNow();
            patches.close();
        }
    }

    @Test
    void aPodOfferedAgainKeepsItsPlaceOrGoesToTheBackAsAsked() {
        List<String> kept = new ArrayList<>();
        PacedPodPatches<String> keep = new PacedPodPatches<>("t", 1, 10, Requeue.KEEP_PLACE, kept::add, false);
        keep.offer("a", "a1");
        keep.offer("b", "b1");
        assertThat(keep.offer("a", "a2").replaced()).isEqualTo("a1");
        keep.sendPending();
        assertThat(kept).containsExactly("a2", "b1");

        List<String> moved = new ArrayList<>();
        PacedPodPatches<String> back = new PacedPodPatches<>("t", 1, 10, Requeue.TO_THE_BACK, moved::add, false);
        back.offer("a", "a1");
        back.offer("b", "b1");
        assertThat(back.offer("a", "a2").replaced()).isEqualTo("a1");
        back.sendPending();
        assertThat(moved).containsExactly("b1", "a2");
    }

    @Test
    void beyondMaxPendingTheOldestIsDroppedAndHandedBack() {
        List<String> sent = new ArrayList<>();
        PacedPodPatches<String> patches = new PacedPodPatches<>("t", 1, 2, Requeue.TO_THE_BACK, sent::add, false);
        patches.offer("a", "a");
        patches.offer("b", "b");
        assertThat(patches.offer("c", "c").dropped()).containsExactly("a");
        assertThat(patches.pending()).isEqualTo(2);
        patches.sendPending();
        assertThat(sent).containsExactly("b", "c");
    }

    @Test
    void closeHandsBackWhatWaitedAndRefusesMore() {
        List<String> sent = new ArrayList<>();
        PacedPodPatches<String> patches = new PacedPodPatches<>("t", 1, 10, Requeue.KEEP_PLACE, sent::add, true);
        patches.close();
        assertThat(patches.offer("a", "a").accepted()).isFalse();
        assertThat(patches.pending()).isZero();

        PacedPodPatches<String> idle = new PacedPodPatches<>("t", 1, 10, Requeue.KEEP_PLACE, sent::add, false);
        idle.offer("a", "a");
        idle.offer("b", "b");
        assertThat(idle.close()).containsExactly("a", "b");
        idle.sendPending();
        assertThat(sent).isEmpty();
    }
}
