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
    void aNameFoundInBytesHasTheIdAndInstanceTheClusterRegistered() {
        NodeNames names = new NodeNames(100);
        int id = names.id(new String("node-17"));
        String registered = names.nameOf(id);
        byte[] buffer = "xx node-17 yy".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

        assertThat(names.findAscii(buffer, 3, 7)).isEqualTo(id);
        assertThat(names.find(new String("node-17"))).isEqualTo(id);
        assertThat(names.nameOf(names.id(new String("node-17")))).isSameAs(registered);
        assertThat(names.id("node-17")).isEqualTo(id);
        assertThat(names.findAscii(buffer, 3, 6)).as("node-1 was never registered").isEqualTo(NodeNames.NONE);
        int accented = names.id("ñode-é");
        assertThat(names.find(new String("ñode-é"))).isEqualTo(accented);
        assertThat(names.size()).isEqualTo(2);
    }

    @Test
    void aNameFoundInAsciiBytesHasTheIdItsCharactersHave() {
        NodeNames names = new NodeNames(100);
        int id = names.id("node-17");
        byte[] body = "[\"node-17\",\"node-1\"]".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

        assertThat(names.findAscii(body, 2, 7)).isEqualTo(id).isEqualTo(names.find("node-17"));
        assertThat(names.findAscii(body, 12, 6)).as("node-1 was never registered").isEqualTo(NodeNames.NONE);
        assertThat(names.findAscii(body, 2, 6)).as("a prefix is another name").isEqualTo(NodeNames.NONE);
        assertThat(names.size()).isEqualTo(1);
    }

    /**
     * {@link NodeNames#follower}: the guess is taken only when its characters stand in the bytes and a quote ends them
     * there — not when the string goes on, is cut short, or when nothing has followed yet.
     */
    @Test
    void theFollowerIsFoundOnlyWhereItsCharactersEndInAQuote() {
        NodeNames names = new NodeNames(100);
        int a = names.id("n-a");
        int b = names.id("n-b");
        byte[] nb = ascii("n-b");
        assertThat(names.follower(a, ascii("n-b\""), 0, 4)).as("nothing has followed n-a yet").isEqualTo(NodeNames.NONE);
        names.findAsciiAfter(names.findAsciiAfter(NodeNames.NONE, ascii("n-a"), 0, 3), nb, 0, nb.length); // n-a, then n-b

        assertThat(names.follower(a, ascii("n-b\"]"), 0, 5)).isEqualTo(b);
        assertThat(names.length(b)).isEqualTo(3);
        assertThat(names.follower(a, ascii("x\"n-b\""), 2, 6)).isEqualTo(b);
        assertThat(names.follower(a, ascii("n-bb\""), 0, 5)).as("a longer string").isEqualTo(NodeNames.NONE);
        assertThat(names.follower(a, ascii("n-b\\u0030\""), 0, 10)).as("an escape follows").isEqualTo(NodeNames.NONE);
        assertThat(names.follower(a, ascii("n-b\""), 0, 3)).as("the quote is past the limit").isEqualTo(NodeNames.NONE);
        assertThat(names.follower(a, ascii("n-c\""), 0, 4)).isEqualTo(NodeNames.NONE);
        assertThat(names.follower(b, ascii("n-a\""), 0, 4)).as("nothing has followed n-b").isEqualTo(NodeNames.NONE);
        assertThat(names.follower(NodeNames.NONE, ascii("n-b\""), 0, 4)).isEqualTo(NodeNames.NONE);
    }

    /** A name with a character a JSON string cannot carry as itself in one byte is found by its String only. */
    @Test
    void aNameWithOtherCharactersIsNeverFoundByBytes() {
        NodeNames names = new NodeNames(100);
        int quoted = names.id("a\"b");
        int slash = names.id("a\\b");
        int accented = names.id("n\u00f6de");

        assertThat(names.findAscii(ascii("a\"b"), 0, 3)).isEqualTo(NodeNames.NONE);
        assertThat(names.findAscii(ascii("a\\b"), 0, 3)).isEqualTo(NodeNames.NONE);
        byte[] zero = {'n', 0, 'd', 'e'};
        assertThat(names.findAscii(zero, 0, 4)).as("the stored stand-in byte matches nothing").isEqualTo(NodeNames.NONE);
        assertThat(new int[] {names.find("a\"b"), names.find("a\\b"), names.find("n\u00f6de")}).containsExactly(quoted, slash, accented);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    /** The name that followed last time is a guess checked against the characters: right, wrong or stale, the id is the name's. */
    @Test
    void aListInAnyOrderFindsEachNamesIdWhateverFollowedLastTime() {
        NodeNames names = new NodeNames(100);
        List<String> all = List.of("n-a", "n-b", "n-c", "n-d");
        all.forEach(names::id);
        for (List<String> order : List.of(all, all, List.of("n-c", "n-a", "n-d", "n-b", "unknown", "n-a"), List.of("n-b", "n-c", "n-a"), all)) {
            int previous = NodeNames.NONE;
            for (String name : order) {
                byte[] quoted = ascii(name + "\"");
                int id = names.follower(previous, quoted, 0, quoted.length); // as a decoder does: the follower, else the table
                if (id == NodeNames.NONE) {
                    id = names.findAsciiAfter(previous, quoted, 0, name.length());
                }
                assertThat(id).as("%s in %s", name, order).isEqualTo(names.find(name));
                previous = id;
            }
        }
        assertThat(names.size()).isEqualTo(4);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"", "a", "ab", "abc", "abcd", "abcde", "node-17", "ip-10-0-3-17.eu-west-1.compute.internal",
            "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~"})
    void theHashIsStringsHashFourCharactersAStep(String name) {
        byte[] bytes = ("xy" + name + "z").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(NodeNames.hash(bytes, 2, name.length())).isEqualTo(name.hashCode());
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
        byte[] junk = "no-such-node".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

        assertThat(names.findAscii(junk, 0, junk.length)).isEqualTo(NodeNames.NONE);
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
                    int previous = NodeNames.NONE;
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
                            byte[] bytes = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                            int found = names.findAscii(bytes, 0, bytes.length);
                            assertThat(found == NodeNames.NONE || names.nameOf(found).equals(name)).as("%s found as %s", name, found).isTrue();
                            byte[] quoted = ascii(name + "\"");
                            int guessed = names.follower(previous, quoted, 0, quoted.length); // followers written by every looking thread
                            assertThat(guessed == NodeNames.NONE || names.nameOf(guessed).equals(name)).as("%s guessed after %s as %s", name, previous, guessed).isTrue();
                            int after = names.findAsciiAfter(previous, bytes, 0, bytes.length);
                            assertThat(after == NodeNames.NONE || names.nameOf(after).equals(name)).as("%s found after %s as %s", name, previous, after).isTrue();
                            previous = after;
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
