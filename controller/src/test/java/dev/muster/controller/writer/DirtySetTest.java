package dev.muster.controller.writer;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

class DirtySetTest {
    private final FakeTicker ticker = new FakeTicker();
    private final DirtySet<String> set = new DirtySet<>(ticker);

    @Test
    void oneEntryPerObjectHoweverOftenItIsMarked() {
        assertThat(set.mark("a")).isTrue();
        for (int i = 0; i < 1000; i++) {
            set.mark("a");
            set.mark("b");
        }
        assertThat(set.size()).isEqualTo(2);
        assertThat(set.poll().key()).isEqualTo("a");
        assertThat(set.poll().key()).isEqualTo("b");
        assertThat(set.poll()).isNull();
    }

    @Test
    void lanesTakeTurnsSoAFewKeysAreNotStuckBehindMany() {
        DirtySet<String> lanes = new DirtySet<>(ticker, 2, k -> k.startsWith("q") ? 0 : 1);
        for (int i = 0; i < 100; i++) {
            lanes.mark("pg" + i);
        }
        lanes.mark("q1");
        lanes.mark("q2");
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            order.add(lanes.poll().key());
        }
        assertThat(order).containsExactly("q1", "pg0", "q2", "pg1", "pg2", "pg3");
        assertThat(lanes.size()).isEqualTo(96);
    }

    @Test
    void entryRemembersItsFirstMark() {
        long first = ticker.getAsLong();
        set.mark("a");
        ticker.advance(Duration.ofSeconds(5));
        set.mark("a");
        assertThat(set.poll().firstMarkedNanos()).isEqualTo(first);
    }

    @Test
    void deletedObjectDropsItsEntryWhetherReadyOrBackingOff() {
        set.mark("ready");
        set.mark("failing");
        DirtySet.Entry<String> e = set.poll();
        e = set.poll();
        set.retry(e, ticker.getAsLong() + 1_000);
        assertThat(set.size()).isEqualTo(1);
        assertThat(set.remove("failing")).isTrue();
        set.mark("ready");
        assertThat(set.remove("ready")).isTrue();
        assertThat(set.size()).isZero();
    }

    @Test
    void retryIsNotReadyBeforeItsTimeAndKeepsOneEntry() {
        set.mark("a");
        DirtySet.Entry<String> e = set.poll();
        set.mark("a"); // changed again while the write was in flight
        set.retry(e, ticker.getAsLong() + Duration.ofSeconds(2).toNanos());
        set.mark("a"); // and again while backing off: still one entry, still backing off
        assertThat(set.size()).isEqualTo(1);
        assertThat(set.backingOff()).isEqualTo(1);
        ticker.advance(Duration.ofSeconds(1));
        assertThat(set.promoteDue(ticker.getAsLong())).isZero();
        assertThat(set.poll()).isNull();
        ticker.advance(Duration.ofSeconds(1));
        assertThat(set.promoteDue(ticker.getAsLong())).isEqualTo(1);
        DirtySet.Entry<String> again = set.poll();
        assertThat(again.attempts()).isEqualTo(1);
        assertThat(again.firstMarkedNanos()).isEqualTo(e.firstMarkedNanos());
    }

    @Test
    void requeueKeepsAttemptsAndMergesAMarkMadeMeanwhile() {
        set.mark("a");
        DirtySet.Entry<String> e = set.poll();
        set.retry(e, ticker.getAsLong());
        set.promoteDue(ticker.getAsLong());
        DirtySet.Entry<String> second = set.poll();
        set.mark("a");
        set.requeue(second);
        assertThat(set.size()).isEqualTo(1);
        DirtySet.Entry<String> third = set.poll();
        assertThat(third.attempts()).isEqualTo(1);
        assertThat(third.firstMarkedNanos()).isEqualTo(e.firstMarkedNanos());
    }

    @Test
    void manyThreadsMarkingNeverMakeMoreEntriesThanObjects() throws Exception {
        int threads = 4;
        int objects = 200;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        CyclicBarrier start = new CyclicBarrier(threads + 1);
        java.util.concurrent.atomic.AtomicBoolean marking = new java.util.concurrent.atomic.AtomicBoolean(true);
        List<CompletableFuture<Void>> markers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            markers.add(CompletableFuture.runAsync(() -> {
                await(start);
                for (int i = 0; i < 20_000; i++) {
                    set.mark("o" + ((i * 7 + seed) % objects));
                }
            }, pool));
        }
        CompletableFuture<Set<String>> drainer = CompletableFuture.supplyAsync(() -> {
            await(start);
            Set<String> seen = new HashSet<>();
            while (marking.get() || set.size() > 0) {
                if (set.size() > objects) {
                    throw new AssertionError("pending " + set.size() + " > " + objects + " objects");
                }
                DirtySet.Entry<String> e = set.poll();
                if (e != null) {
                    seen.add(e.key());
                }
            }
            return seen;
        }, pool);
        CompletableFuture.allOf(markers.toArray(CompletableFuture[]::new)).get();
        marking.set(false);
        assertThat(drainer.get()).hasSize(objects);
        assertThat(set.size()).isZero();
        pool.shutdown();
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
