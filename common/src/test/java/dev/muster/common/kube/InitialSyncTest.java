package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class InitialSyncTest {
    /** A source whose sync flag and cache keys the test sets. Thread-safe. */
    static final class FakeSource implements InitialSync.Source {
        private final String name;
        private volatile boolean synced;
        private volatile List<String> keys = List.of();

        FakeSource(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean hasSynced() {
            return synced;
        }

        @Override
        public Collection<String> keys() {
            return keys;
        }

        void sync(String... keys) {
            this.keys = List.of(keys);
            this.synced = true;
        }
    }

    private final FakeSource pods = new FakeSource("pods");
    private final FakeSource nodes = new FakeSource("nodes");
    private final AtomicInteger fired = new AtomicInteger();
    private final InitialSync barrier = new InitialSync(List.of(pods, nodes), fired::incrementAndGet);

    @Test
    void waitsForEverySourceToSync() {
        pods.sync();
        assertThat(barrier.poll()).isFalse();
        assertThat(barrier.pending()).isEqualTo(-1);
        nodes.sync();
        assertThat(barrier.poll()).isTrue();
        assertThat(fired).hasValue(1);
    }

    @Test
    void waitsUntilTheHandlerProcessedEveryListedKey() {
        barrier.seen("pods", "ns/a"); // processed before the informer reported synced
        pods.sync("ns/a", "ns/b");
        nodes.sync("n1");
        assertThat(barrier.poll()).isFalse();
        assertThat(barrier.pending()).isEqualTo(2);

        barrier.seen("pods", "ns/b");
        assertThat(barrier.poll()).isFalse();
        barrier.seen("nodes", "n1");
        assertThat(barrier.poll()).isTrue();
        assertThat(fired).hasValue(1);
    }

    @Test
    void firesExactlyOnceAndForgetsKeysAfterwards() {
        pods.sync();
        nodes.sync();
        assertThat(barrier.poll()).isTrue();
        assertThat(barrier.poll()).isTrue();
        barrier.seen("pods", "ns/late");
        assertThat(barrier.poll()).isTrue();
        assertThat(fired).hasValue(1);
        assertThat(barrier.isDone()).isTrue();
    }

    @Test
    void concurrentPollsFireOnce() throws Exception {
        pods.sync("ns/a");
        nodes.sync();
        List<CompletableFuture<Boolean>> pollers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            pollers.add(CompletableFuture.supplyAsync(() -> {
                barrier.seen("pods", "ns/a");
                boolean done = false;
                while (!done) {
                    done = barrier.poll();
                }
                return done;
            }));
        }
        for (CompletableFuture<Boolean> p : pollers) {
            assertThat(p.get()).isTrue();
        }
        assertThat(fired).hasValue(1);
    }
}
