package dev.muster.demo.cli;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.testing.ConsoleRun;
import dev.muster.controller.Controller;
import dev.muster.core.model.QueueSpec;
import dev.muster.demo.EmbeddedMuster;
import dev.muster.demo.cluster.EmbeddedCluster;
import dev.muster.testsupport.extender.ExtenderClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** What {@code serve --embedded} offers, on free ports: the extender's HTTP verbs and the controller's Queues service for the CLI. */
class QueuesCliTest {
    private static final Path FIXTURES = Path.of("../server/src/test/resources/fixtures/kube-scheduler-v1.36/nodecache-true");
    private static EmbeddedMuster muster;
    private static String controller;

    @BeforeAll
    static void start() throws Exception {
        EmbeddedCluster cluster = new EmbeddedCluster(System::nanoTime);
        for (int i = 1; i <= 3; i++) {
            cluster.applyNode(node("node-" + i, "8", "32Gi"));
        }
        cluster.applyQueue(QueueSpec.open("research", res("16", "64Gi")));
        cluster.createPodGroup(podGroup("ml", "train-1", 4, "research"));
        muster = EmbeddedMuster.start(cluster, EmbeddedMuster.Ports.anyLoopback(),
                new EmbeddedMuster.Options(Duration.ofSeconds(60), Duration.ofMillis(100), Controller.Settings.DEFAULTS), null);
        controller = "127.0.0.1:" + muster.controllerGrpcPort();
    }

    @AfterAll
    static void stop() {
        muster.close();
    }

    private static ConsoleRun cli(String command, String... args) throws Exception {
        return ConsoleRun.of((o, e) -> switch (command) {
            case "queues" -> QueuesCli.queues(List.of(args), Map.of(), o, e);
            case "gangs" -> QueuesCli.gangs(List.of(args), Map.of(), o, e);
            default -> QueuesCli.gang(List.of(args), Map.of(), o, e);
        });
    }

    @Test
    void queuesListsTheControllersQueues() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> cli("queues", "--controller", controller).out().contains("research"));
        ConsoleRun r = cli("queues", "--controller", controller);

        assertThat(r.exit()).isZero();
        assertThat(r.out().lines().toList()).first().asString().startsWith("NAME").contains("ALLOCATED", "CAPABILITY", "FAIR SHARE", "BORROWED", "RESERVATIONS");
        assertThat(r.out()).containsPattern("research +Open +1 +0 +cpu=16,memory=64Gi +\\S+ +\\S+ +1 ");
    }

    @Test
    void gangShowsStateAndReason() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> cli("gang", "ml/train-1", "--controller", controller).exit() == 0);
        ConsoleRun r = cli("gang", "ml/train-1", "--controller", controller);

        assertThat(r.out()).contains("gang       ml/train-1", "queue      research", "minMember  4", "phase      Pending");
    }

    @Test
    void gangsListsTheControllersGangsWithTheirState() throws Exception {
        await().atMost(Duration.ofSeconds(10)).until(() -> cli("gangs", "--controller", controller).out().contains("ml/train-1"));
        ConsoleRun r = cli("gangs", "--controller", controller);

        assertThat(r.exit()).isZero();
        assertThat(r.out().lines().toList()).first().asString().startsWith("GANG");
        assertThat(r.out()).containsPattern("ml/train-1 +research +Pending +4 ");
    }

    @Test
    void unknownGangsBadReferencesAndAnUnreachableControllerAreExplained() throws Exception {
        ConsoleRun unknown = cli("gang", "ml/nope", "--controller", controller);
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.err()).contains("podgroup ml/nope not found");

        ConsoleRun bad = cli("gang", "just-a-name");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("\"just-a-name\" is not NAMESPACE/NAME");

        ConsoleRun down = cli("queues", "--controller", "127.0.0.1:1");
        assertThat(down.exit()).isEqualTo(1);
        assertThat(down.err()).contains("cannot reach the controller at 127.0.0.1:1");
    }

    @Test
    void kubeSchedulersRecordedRequestsForAPodTheEmbeddedClusterDoesNotHaveAreRefusedOverHttp() throws Exception {
        ExtenderClient client = new ExtenderClient(muster.extenderUrl(), Duration.ofSeconds(30));

        ExtenderClient.Raw filter = client.post("/filter", Files.readAllBytes(FIXTURES.resolve("filter-request.json")));
        ExtenderClient.FilterAnswer answer = ExtenderClient.parseFilterForTest(filter);

        assertThat(filter.status()).isEqualTo(200);
        // the verbs act only on pods the cluster showed: the recorded pod is not in the embedded cluster
        assertThat(answer.error()).contains("has not been seen in the cluster by muster");
        assertThat(answer.nodeNames()).isEmpty();
        String bind = client.bind("gang-pod-nc", "default", "4952cf49-ad11-4237-a126-55e5368c0122", "node-1");
        assertThat(bind).contains("has not been seen in the cluster by muster");

        // docs/demo.md ("Poke at a running Muster") quotes what both answers begin with
        String demoDoc = Files.readString(Path.of("../docs/demo.md")).replaceAll("\\s+", " ");
        String quoted = "pod default/gang-pod-nc (uid 4952cf49-ad11-4237-a126-55e5368c0122) has not been seen in the cluster by muster";
        assertThat(demoDoc).contains("`" + quoted + "`");
        assertThat(answer.error()).startsWith(quoted);
        assertThat(bind).contains(quoted);
    }
}
