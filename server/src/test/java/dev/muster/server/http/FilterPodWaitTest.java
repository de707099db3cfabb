package dev.muster.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.scheduler.GangScheduler;
import dev.muster.server.http.wire.WireDecoder;
import io.prometheus.client.CollectorRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * kube-scheduler's informer may show a new pod before Muster's: the filter waits for Muster's informer to deliver it and
 * answers normally (no error, so no backoff); only a pod that never comes is answered with an error, counted by cause.
 */
class FilterPodWaitTest {
    private GangScheduler scheduler;
    private CollectorRegistry registry;
    private FilterErrors errors;
    private ExtenderVerbs verbs;

    @BeforeEach
    void setUp() {
        scheduler = ExtenderHarness.scheduler("n1");
        scheduler.markSynced();
        registry = new CollectorRegistry();
        errors = new FilterErrors(registry);
        verbs = new ExtenderVerbs(scheduler, Duration.ofSeconds(5), false, Duration.ofMinutes(5), errors);
    }

    @Test
    void aFilterThatArrivesBeforeThePodsInformerEventWaitsForItAndPasses() throws Exception {
        byte[] body = filter("late");
        CompletableFuture<ExtenderVerbs.Reply> asked = CompletableFuture.supplyAsync(() -> verbs.filter(body));
        org.awaitility.Awaitility.await("the filter waits for the pod").until(() -> scheduler.podsAwaited() == 1);
        assertThat(asked).isNotDone();
        scheduler.upsertPod(WireDecoder.decodeExtenderArgs(body).pod().pod()); // Muster's informer delivers it, later

        ExtenderVerbs.Reply r = asked.get();
        assertThat(r.outcome()).isEqualTo("fit");
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("\"n1\"").doesNotContain("not been seen");
        assertThat(errors.count("not_seen")).isZero();
        assertThat(errors.waits("seen")).isOne();
    }

    @Test
    void aPodThatNeverComesIsAnErrorCountedByCause() {
        ExtenderVerbs quick = new ExtenderVerbs(scheduler, Duration.ofSeconds(5), false, Duration.ofMillis(1), errors);
        ExtenderVerbs.Reply r = quick.filter(filter("ghost"));
        assertThat(r.outcome()).isEqualTo("refused");
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("\"Error\"", "has not been seen in the cluster by muster",
                "waited up to 1 ms");
        assertThat(errors.count("not_seen")).isOne();
        assertThat(errors.waits("not_seen")).isOne();
        assertThat(registry.getSampleValue("muster_filter_errors_total", new String[] {"cause"}, new String[] {"not_seen"})).isEqualTo(1.0);
    }

    @Test
    void aPodOfAnotherSchedulerIsRefusedAtOnceWithItsCause() {
        byte[] body = filter("other");
        scheduler.upsertPod(WireDecoder.decodeExtenderArgs(body).pod().pod().asInCluster("default-scheduler", false));
        assertThat(verbs.filter(body).outcome()).isEqualTo("refused");
        assertThat(errors.count("other_scheduler")).isOne();
        assertThat(errors.waits("seen") + errors.waits("not_seen")).isZero();
    }

    private static byte[] filter(String name) {
        return ("{'Pod':{'metadata':{'name':'" + name + "','namespace':'ns','uid':'u-" + name + "'},'spec':{'containers':[{'name':'c',"
                + "'resources':{'requests':{'cpu':'1'}}}]}},'NodeNames':['n1']}").replace('\'', '"').getBytes(StandardCharsets.UTF_8);
    }
}
