package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeList;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Driven step by step: a fake clock, a pause that only records, watches that end when the test says. */
class PacedWatchesTest {
    private static final CallGeneratorParams WATCH = new CallGeneratorParams(true, "100", 300);

    private long nanos;
    private final List<Duration> pauses = new ArrayList<>();
    private int watchRequests;
    private final Deque<List<Watch.Response<V1Node>>> next = new ArrayDeque<>();
    private final PacedWatches<V1Node, V1NodeList> paced = new PacedWatches<>(scripted(), "nodes", () -> nanos, pauses::add);

    /** Each watch yields the next list of events queued by the test (none when nothing is queued), then ends. */
    private ListerWatcher<V1Node, V1NodeList> scripted() {
        return new ListerWatcher<>() {
            @Override
            public V1NodeList list(CallGeneratorParams params) {
                return new V1NodeList();
            }

            @Override
            public Watchable<V1Node> watch(CallGeneratorParams params) {
                watchRequests++;
                return new ScriptedWatch(next.isEmpty() ? List.of() : next.poll());
            }
        };
    }

    /** One watch as the reflector runs it: start, read until it ends, close; {@code lasted} passes meanwhile. */
    private void watchOnce(Duration lasted, List<Watch.Response<V1Node>> events) throws Exception {
        next.add(events);
        Watchable<V1Node> w = paced.watch(WATCH);
        while (w.hasNext()) {
            w.next();
        }
        nanos += lasted.toNanos();
        w.close();
    }

    private static Watch.Response<V1Node> added(String name) {
        return new Watch.Response<>("ADDED", new V1Node().metadata(new V1ObjectMeta().name(name).resourceVersion("101")));
    }

    @Test
    void watchesThatEndAtOnceWithoutAnEventWaitLongerEachTimeUpToThirtySeconds() throws Exception {
        for (int i = 0; i < 8; i++) {
            watchOnce(Duration.ofMillis(5), List.of());
        }

        assertThat(pauses).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(8),
                Duration.ofSeconds(16), Duration.ofSeconds(30), Duration.ofSeconds(30));
        assertThat(watchRequests).isEqualTo(8);
        assertThat(paced.shortEmptyStreak()).isEqualTo(8);
    }

    @Test
    void aWatchThatDeliversAnEventStartsOverWithoutAPause() throws Exception {
        watchOnce(Duration.ofMillis(5), List.of());
        watchOnce(Duration.ofMillis(5), List.of());
        watchOnce(Duration.ofMillis(5), List.of(added("n1")));
        watchOnce(Duration.ofMillis(5), List.of());
        watchOnce(Duration.ofMillis(5), List.of());

        assertThat(pauses).as("1s, 2s; then after the event none; then 1s again")
                .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(1));
    }

    @Test
    void aWatchThatLastedASecondIsHealthyEvenWithoutEvents() throws Exception {
        watchOnce(Duration.ofMillis(5), List.of());
        watchOnce(PacedWatches.HEALTHY, List.of());
        watchOnce(Duration.ofMinutes(5), List.of());

        assertThat(pauses).containsExactly(Duration.ofSeconds(1));
        assertThat(paced.shortEmptyStreak()).isZero();
    }

    @Test
    void anInformerStoppedDuringAPauseGetsAnEmptyWatchAndKeepsTheInterrupt() throws Exception {
        PacedWatches<V1Node, V1NodeList> stopping = new PacedWatches<>(scripted(), "nodes", () -> nanos, d -> {
            throw new InterruptedException("informer stopped");
        });
        stopping.watch(WATCH).close();

        try {
            Watchable<V1Node> afterStop = stopping.watch(WATCH);

            assertThat(afterStop.hasNext()).isFalse();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
            assertThat(watchRequests).as("no request after the stop").isEqualTo(1);
        } finally {
            Thread.interrupted();
        }
    }

    /** A watch that yields {@code events} and then ends, as the API server closing it. */
    private static final class ScriptedWatch implements Watchable<V1Node> {
        private final Iterator<Watch.Response<V1Node>> events;

        ScriptedWatch(List<Watch.Response<V1Node>> events) {
            this.events = events.iterator();
        }

        @Override
        public boolean hasNext() {
            return events.hasNext();
        }

        @Override
        public Watch.Response<V1Node> next() {
            return events.next();
        }

        @Override
        public Iterator<Watch.Response<V1Node>> iterator() {
            return this;
        }

        @Override
        public void close() {}
    }
}
