package dev.muster.server.http;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.muster.testsupport.extender.ExtenderClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import dev.muster.server.leader.Leadership;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The captured kube-scheduler v1.36 requests, byte for byte, over real HTTP. */
class ExtenderHttpGoldenTest {
    private ExtenderHarness h;

    @BeforeEach
    void setUp() throws Exception {
        // the extender serves the profile that recorded the gang fixture ("bench-c"); pods of other profiles are
        // only accounted for, never gang members
        h = new ExtenderHarness(dev.muster.core.scheduler.SchedulerConfig.DEFAULT.withSchedulerName("bench-c"), null, Leadership.ALWAYS, 1 << 20);
        h.nodes(node("node-1", "8", "32Gi"), node("node-2", "8", "32Gi"), node("node-3", "8", "32Gi"));
        for (int i = 1; i <= 4; i++) {
            h.nodes(node("bench-node-000" + i, "8", "32Gi", "nvidia.com/gpu", "8"));
        }
        for (int i = 1; i <= 3; i++) {
            h.nodes(node("preempt-node-" + i, "2", "4Gi"));
        }
        h.scheduler.upsertPodGroup(podGroup("bench", "pg1", 1, "default"));
        h.seen(ExtenderHarness.fixture("nodecache-true/filter-request.json"), ExtenderHarness.fixture("nodecache-false/filter-request.json"),
                ExtenderHarness.fixture("gang-annotated/filter-request.json"));
        h.scheduler.markSynced();
    }

    @AfterEach
    void tearDown() {
        h.close();
    }

    private static Set<String> topLevelKeys(byte[] json) throws IOException {
        Set<String> keys = new TreeSet<>();
        try (JsonParser p = new JsonFactory().createParser(json)) {
            JsonToken t = p.nextToken();
            if (t == JsonToken.START_ARRAY) {
                while (p.nextToken() == JsonToken.START_OBJECT) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        keys.add(p.currentName());
                        p.nextToken();
                        p.skipChildren();
                    }
                }
                return keys;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                keys.add(p.currentName());
                p.nextToken();
                p.skipChildren();
            }
        }
        return keys;
    }

    private void assertSameShape(String dir, String verb) throws IOException {
        ExtenderClient.Raw r = h.client.post("/" + verb, ExtenderHarness.fixture(dir + "/" + verb + "-request.json"));
        assertThat(r.status()).as(dir + " " + verb).isEqualTo(200);
        Set<String> expected = topLevelKeys(ExtenderHarness.fixture(dir + "/" + verb + "-response.json"));
        assertThat(topLevelKeys(r.body())).as(dir + " " + verb + " answer keys").containsAll(expected);
    }

    @Test
    void nodeCacheTrueFilterPrioritizeBind() throws IOException {
        assertSameShape("nodecache-true", "filter");
        ExtenderClient.FilterAnswer f = ExtenderClient.parseFilterForTest(
                h.client.post("/filter", ExtenderHarness.fixture("nodecache-true/filter-request.json")));
        // three empty nodes: Muster picks (binpack ties go to the first candidate), so kube-scheduler skips scoring
        assertThat(f.nodeNames()).containsExactly("node-1");
        assertThat(f.failed()).isEmpty();
        assertSameShape("nodecache-true", "prioritize");
        assertSameShape("nodecache-true", "bind");
        // the capture binds to node-3, where Muster's filter did not pass the pod (it picked node-1): refused, nothing bound
        assertThat(h.binder.bound()).isEmpty();
        assertThat(h.client.bind("gang-pod-nc", "default", "4952cf49-ad11-4237-a126-55e5368c0122", "node-3"))
                .contains("was not filtered onto node node-3");
        assertThat(h.client.bind("gang-pod-nc", "default", "4952cf49-ad11-4237-a126-55e5368c0122", "node-1")).isEmpty();
        assertThat(h.binder.bound()).containsEntry("4952cf49-ad11-4237-a126-55e5368c0122", "node-1");
    }

    @Test
    void aPodWithPreferredAffinityPassesOnEveryNodeThatFitsForKubeSchedulerToScore() {
        String body = new String(ExtenderHarness.fixture("nodecache-true/filter-request.json"), java.nio.charset.StandardCharsets.UTF_8);
        String spec = "\"spec\":{";
        assertThat(body).contains(spec);
        String soft = body.replaceFirst(java.util.regex.Pattern.quote(spec), java.util.regex.Matcher.quoteReplacement(spec
                + "\"affinity\":{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":10,"
                + "\"preference\":{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"b\"]}]}}]}},"));

        ExtenderClient.FilterAnswer f = ExtenderClient.parseFilterForTest(h.client.post("/filter", soft.getBytes(java.nio.charset.StandardCharsets.UTF_8)));

        assertThat(f.nodeNames()).containsExactly("node-1", "node-2", "node-3");
    }

    @Test
    void nodeCacheFalseAnswersWithFullNodeObjectsThatPassed() throws IOException {
        assertSameShape("nodecache-false", "filter");
        ExtenderClient.Raw r = h.client.post("/filter", ExtenderHarness.fixture("nodecache-false/filter-request.json"));
        List<String> names = new ArrayList<>();
        try (JsonParser p = new JsonFactory().createParser(r.body())) {
            p.nextToken();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                p.nextToken();
                if (f.equals("Nodes")) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String g = p.currentName();
                        p.nextToken();
                        if (g.equals("items")) {
                            while (p.nextToken() == JsonToken.START_OBJECT) {
                                while (p.nextToken() == JsonToken.FIELD_NAME) {
                                    String k = p.currentName();
                                    p.nextToken();
                                    if (k.equals("metadata")) {
                                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                                            String m = p.currentName();
                                            p.nextToken();
                                            if (m.equals("name")) {
                                                names.add(p.getText());
                                            } else {
                                                p.skipChildren();
                                            }
                                        }
                                    } else {
                                        p.skipChildren();
                                    }
                                }
                            }
                        } else {
                            p.skipChildren();
                        }
                    }
                } else {
                    p.skipChildren();
                }
            }
        }
        assertThat(names).containsExactly("node-1");
        assertSameShape("nodecache-false", "prioritize");
        assertSameShape("nodecache-false", "bind");
    }

    @Test
    void gangAnnotatedPodIsAGangMemberAndBindsThroughTheBarrier() throws IOException {
        assertSameShape("gang-annotated", "filter");
        assertThat(h.scheduler.gang(new dev.muster.core.model.GangKey("bench", "pg1")).slotNodes()).hasSize(1);
        assertSameShape("gang-annotated", "prioritize");
        assertSameShape("gang-annotated", "bind");
        assertThat(h.binder.bound()).containsEntry("d773cc98-31b0-4dba-82b5-d3eb51195ef5", "bench-node-0001");
    }

    @Test
    void preemptAnswersWithMetaVictims() throws IOException {
        assertSameShape("preempt", "filter");
        assertSameShape("preempt", "preempt");
        ExtenderClient.Raw r = h.client.post("/preempt", ExtenderHarness.fixture("preempt/preempt-request.json"));
        String body = new String(r.body());
        assertThat(body).contains("\"NodeNameToMetaVictims\"", "preempt-node-1", "d74f74e3-eeae-491f-9282-a11a99985ead");
    }
}
