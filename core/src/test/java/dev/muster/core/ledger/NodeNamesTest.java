package dev.muster.core.ledger;

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
    void aNameFoundInCharactersHasTheIdAndInstanceTheClusterRegistered() {
        NodeNames names = new NodeNames(100);
        int id = names.id(new String("node-17"));
        String registered = names.nameOf(id);
        char[] buffer = "xx node-17 yy".toCharArray();

        assertThat(names.find(buffer, 3, 7)).isEqualTo(id);
        assertThat(names.find(new String("node-17"))).isEqualTo(id);
        assertThat(names.nameOf(names.id(new String("node-17")))).isSameAs(registered);
        assertThat(names.id("node-17")).isEqualTo(id);
        assertThat(names.find(buffer, 3, 6)).as("node-1 was never registered").isEqualTo(NodeNames.NONE);
        int accented = names.id("ñode-é");
        assertThat(names.find("ñode-é".toCharArray(), 0, 6)).isEqualTo(accented);
        assertThat(names.size()).isEqualTo(2);
    }

    @Test
    void idsCountFromZeroInRegistrationOrderAndNeverChange() {
        NodeNames names = new NodeNames(10_000);
        for (int i = 0; i < 5_000; i++) { // grows the table several times
            assertThat(names.id("n" + i)).isEqualTo(i);
        }
        for (int i = 0; i < 5_000; i++) {
            assertThat(names.find("n" + i)).isEqualTo(i);
            assertThat(names.nameOf(i)).isEqualTo("n" + i);
        }
    }

    @Test
    void lookingANameUpRegistersNothing() {
        NodeNames names = new NodeNames(100);
        char[] junk = "no-such-node".toCharArray();

        assertThat(names.find(junk, 0, junk.length)).isEqualTo(NodeNames.NONE);
        assertThat(names.find("no-such-node")).isEqualTo(NodeNames.NONE);
        assertThat(names.size()).isZero();
    }

    @Test
    void beyondItsBoundNewNamesGetNoId() {
        NodeNames names = new NodeNames(3);
        String a = names.nameOf(names.id("a"));
        names.id("b");
        names.id("c");
        String d = new String("d");

        assertThat(names.id(d)).isEqualTo(NodeNames.NONE);
        assertThat(names.find("d")).isEqualTo(NodeNames.NONE);
        assertThat(names.nameOf(names.id(new String("a")))).isSameAs(a);
        assertThat(names.size()).isEqualTo(3);
    }

    @Test
    void manyThreadsGrowingTheTableAllSeeOneIdAndInstancePerName() throws Exception {
        NodeNames names = new NodeNames(NodeNames.MAX_NAMES);
        int threads = 8;
        int count = 5_000;
        ConcurrentHashMap<String, Integer> ids = new ConcurrentHashMap<>();
        ConcurrentHashMap<String, String> instances = new ConcurrentHashMap<>();
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
                        if (offset % 2 == 0) { // registers, as the ledger does
                            int id = names.id(name);
                            assertThat(names.nameOf(id)).isEqualTo(name);
                            Integer first = ids.putIfAbsent(name, id);
                            assertThat(first == null || first == id).as("one id for %s", name).isTrue();
                            String c = names.nameOf(names.id(name));
                            String firstInstance = instances.putIfAbsent(name, c);
                            assertThat(firstInstance == null || firstInstance == c).as("one instance for %s", name).isTrue();
                        } else { // only looks up, as the decoder does: a miss or the one id
                            int found = names.find(name.toCharArray(), 0, name.length());
                            assertThat(found == NodeNames.NONE || names.nameOf(found).equals(name)).as("%s found as %s", name, found).isTrue();
                        }
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
        ids.forEach((name, id) -> assertThat(names.find(name)).isEqualTo(id));
    }
}
