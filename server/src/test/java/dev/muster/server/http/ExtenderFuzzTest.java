package dev.muster.server.http;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.testsupport.extender.ExtenderClient;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Thousands of mutated fixture bodies thrown at the real HTTP server: never a 5xx, the server stays up,
 * and a rejected request leaves the ledger and the stream exactly as they were.
 */
class ExtenderFuzzTest {
    private static ExtenderHarness h;
    private static final List<String> BODIES = List.of(
            "nodecache-true/filter-request.json", "nodecache-false/filter-request.json", "gang-annotated/filter-request.json",
            "nodecache-true/bind-request.json", "preempt/preempt-request.json");
    private static final List<String> VERBS = List.of("/filter", "/prioritize", "/bind", "/preempt");

    @BeforeContainer
    static void start() throws Exception {
        h = new ExtenderHarness();
        h.nodes(node("node-1", "8", "32Gi"), node("node-2", "8", "32Gi"), node("node-3", "8", "32Gi"));
        h.scheduler.upsertPodGroup(podGroup("bench", "pg1", 3, "default"));
        h.scheduler.markSynced();
    }

    @AfterContainer
    static void stop() {
        h.close();
    }

    record Mutation(int body, int verb, int kind, int at, int value) {}

    @Provide
    Arbitrary<Mutation> mutations() {
        return Combinators.combine(Arbitraries.integers().between(0, BODIES.size() - 1), Arbitraries.integers().between(0, VERBS.size() - 1),
                Arbitraries.integers().between(0, 5), Arbitraries.integers().between(0, Integer.MAX_VALUE),
                Arbitraries.integers().between(0, 255)).as(Mutation::new);
    }

    static byte[] mutate(byte[] body, Mutation m) {
        int at = m.at() % body.length;
        return switch (m.kind()) {
            case 0 -> { // flip a byte
                byte[] b = body.clone();
                b[at] = (byte) m.value();
                yield b;
            }
            case 1 -> java.util.Arrays.copyOf(body, at); // truncate
            case 2 -> { // insert a structural character
                String s = new String(body);
                char c = "{}[]\",:0-nte\\".charAt(m.value() % 13);
                yield (s.substring(0, at) + c + s.substring(at)).getBytes();
            }
            case 3 -> { // swap a value's type: replace a quote-delimited string with a number
                String s = new String(body);
                int q = s.indexOf('"', at);
                int e = q < 0 ? -1 : s.indexOf('"', q + 1);
                yield q < 0 || e < 0 ? body : (s.substring(0, q) + m.value() + s.substring(e + 1)).getBytes();
            }
            case 4 -> new String(body).toLowerCase().getBytes(); // key case changes
            default -> { // delete a range
                int end = Math.min(body.length, at + 1 + m.value() % 64);
                byte[] b = new byte[body.length - (end - at)];
                System.arraycopy(body, 0, b, 0, at);
                System.arraycopy(body, end, b, at, body.length - end);
                yield b;
            }
        };
    }

    @Property(tries = 3000)
    void neverA5xxAndRejectionsChangeNothing(@ForAll("mutations") Mutation m) {
        byte[] body = mutate(ExtenderHarness.fixture(BODIES.get(m.body())), m);
        String before = h.fingerprint();
        ExtenderClient.Raw r = h.client.post(VERBS.get(m.verb()), body);
        assertThat(r.status()).as("status for a mutated body").isLessThan(500);
        if (r.status() >= 400) {
            assertThat(new String(r.body())).contains("\"Error\"");
            assertThat(h.fingerprint()).isEqualTo(before);
        }
    }

    @Property(tries = 1)
    void theServerIsStillUpAfterwards() {
        assertThat(h.client.get("/healthz").status()).isEqualTo(200);
        h.scheduler.expireDue();
        assertThat(h.scheduler.checkInvariants()).isEmpty();
    }
}
