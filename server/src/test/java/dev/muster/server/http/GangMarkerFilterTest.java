package dev.muster.server.http;

import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.scheduler.GangScheduler;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --gang-marker}: kube-scheduler binds through Muster only pods that request {@code muster.dev/gang}, so a gang
 * member without it would be bound outside its barrier — the filter refuses it, naming why, and plans nothing for it.
 */
class GangMarkerFilterTest {
    private static final String MARKED = ",'resources':{'limits':{'muster.dev/gang':'0'},'requests':{'cpu':'1','muster.dev/gang':'0'}}";
    private static final String UNMARKED = ",'resources':{'requests':{'cpu':'1'}}";

    private GangScheduler scheduler;
    private ExtenderVerbs verbs;

    @BeforeEach
    void setUp() {
        scheduler = ExtenderHarness.scheduler("n1", "n2");
        scheduler.upsertPodGroup(podGroup("ns", "g", 2, "default"));
        scheduler.markSynced();
        verbs = new ExtenderVerbs(scheduler, Duration.ofSeconds(5), true);
    }

    @Test
    void anUnmarkedGangMemberIsRefusedOnEveryNodeAsUnresolvableAndNothingIsReserved() {
        ExtenderVerbs.Reply r = verbs.filter(filter("g-0", "g", UNMARKED));

        assertThat(r.outcome()).isEqualTo("unresolvable");
        String body = new String(r.body(), StandardCharsets.UTF_8);
        assertThat(body).contains("\"FailedAndUnresolvableNodes\"").contains("\"n1\"").contains("\"n2\"")
                .contains("pod ns/g-0 is a member of gang ns/g but requests no muster.dev/gang");
        assertThat(scheduler.stats().reservations()).isZero();
    }

    @Test
    void aMarkedGangMemberIsPlannedAndASinglePodNeedsNoMarker() {
        assertThat(verbs.filter(filter("g-0", "g", MARKED)).outcome()).isEqualTo("fit");
        assertThat(scheduler.stats().reservations()).isOne();
        assertThat(verbs.filter(filter("solo", null, UNMARKED)).outcome()).isEqualTo("fit");
    }

    @Test
    void withoutTheFlagEveryPodIsBoundThroughMusterSoNoMarkerIsNeeded() {
        ExtenderVerbs bindsEverything = new ExtenderVerbs(scheduler, Duration.ofSeconds(5), false);
        assertThat(bindsEverything.filter(filter("g-0", "g", UNMARKED)).outcome()).isEqualTo("fit");
    }

    /** A filter request for a pod the cluster has shown (upserted as the informer would, before kube-scheduler asks). */
    private byte[] filter(String name, String group, String resources) {
        String annotations = group == null ? "" : ",'annotations':{'scheduling.k8s.io/group-name':'" + group + "'}";
        byte[] body = ("{'Pod':{'metadata':{'name':'" + name + "','namespace':'ns','uid':'u-" + name + "'" + annotations
                + "},'spec':{'containers':[{'name':'c'" + resources + "}]}},'NodeNames':['n1','n2']}").replace('\'', '"').getBytes(StandardCharsets.UTF_8);
        scheduler.upsertPod(dev.muster.server.http.wire.WireDecoder.decodeExtenderArgs(body).pod().pod());
        return body;
    }
}
