package dev.muster.server.http.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class NodeNamesTest {
    @Test
    void aNameReadFromCharactersIsTheInstanceTheInformerRegistered() {
        NodeNames names = new NodeNames(100);
        String fromInformer = names.canonical(new String("node-17"));
        char[] buffer = "xx node-17 yy".toCharArray();

        assertThat(names.canonical(buffer, 3, 7)).isSameAs(fromInformer);
        assertThat(names.canonical(new String("node-17"))).isSameAs(fromInformer);
        assertThat(names.canonical(buffer, 3, 6)).isEqualTo("node-1").isNotSameAs(fromInformer);
        assertThat(names.canonical("ñode-é".toCharArray(), 0, 6)).isEqualTo("ñode-é");
        assertThat(names.size()).isEqualTo(3);
    }

    @Test
    void beyondItsBoundUnknownNamesAreNotRemembered() {
        NodeNames names = new NodeNames(3);
        String a = names.canonical("a");
        names.canonical("b");
        names.canonical("c");
        String d = names.canonical(new String("d"));

        assertThat(d).isEqualTo("d");
        assertThat(names.canonical(new String("d"))).isNotSameAs(d);
        assertThat(names.canonical("a")).isSameAs(a);
        assertThat(names.size()).isEqualTo(3);
    }

    @Test
    void manyThreadsGrowingTheTableAllSeeOneInstancePerName() throws Exception {
        NodeNames names = new NodeNames(NodeNames.MAX_NAMES);
        int threads = 8;
        int count = 5_000;
        ConcurrentHashMap<String, String> seen = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int offset = t;
                fs.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < count; i++) {
                        String name = "node-" + ((i * 7 + offset * 13) % count);
                        String c = offset % 2 == 0 ? names.canonical(name) : names.canonical(name.toCharArray(), 0, name.length());
                        assertThat(c).isEqualTo(name);
                        String first = seen.putIfAbsent(name, c);
                        assertThat(first == null || first == c).as("one instance for %s", name).isTrue();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
        assertThat(names.size()).isEqualTo(count);
    }
}
