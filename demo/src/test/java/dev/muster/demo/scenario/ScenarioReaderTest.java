package dev.muster.demo.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ScenarioReaderTest {
    private static final String GOOD = """
            name: small
            seed: 3
            speed: 15
            settings:
              gangDeadline: 30s
              podMaxBackoff: 5s
            nodes:
              - group: cpu
                count: 4
                cpu: 16
                memory: 64Gi
              - group: gpu
                count: 2
                cpu: 32
                memory: 128Gi
                gpu: 4
            queues:
              - name: ml
                weight: 2
                capability: {cpu: 40, gpu: 6}
              - name: closed
                state: Closed
            gangs:
              - name: train
                namespace: ml
                queue: ml
                count: 5
                size: 2-8
                minMember: 50%
                cpu: 500m-2
                memory: [1Gi, 2Gi]
                gpu: 1
                duration: 30s-2m
                start: 10s
                rate: 6/m
            pods:
              - name: web
                count: 3
                cpu: 1
                memory: 1Gi
                duration: 1m
                rate: 1/s
            """;

    @Test
    void readsEveryPartOfAScenario() {
        Scenario s = ScenarioReader.parse(GOOD, "small.yaml");

        assertThat(s.name()).isEqualTo("small");
        assertThat(s.seed()).isEqualTo(3);
        assertThat(s.settings().speed()).isEqualTo(15);
        assertThat(s.settings().gangDeadline()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.settings().podMaxBackoff()).isEqualTo(Duration.ofSeconds(5));
        assertThat(s.settings().podInitialBackoff()).isEqualTo(Settings.DEFAULTS.podInitialBackoff());
        assertThat(s.nodeCount()).isEqualTo(6);
        assertThat(s.nodes().get(1).allocatable().get(PodShape.GPU)).isEqualTo(4);
        assertThat(s.nodes().get(0).allocatable().get("pods")).isEqualTo(110);
        assertThat(s.queues()).extracting(q -> q.name() + ":" + q.state() + ":" + q.weight()).containsExactly("ml:OPEN:2", "closed:CLOSED:1");
        assertThat(s.queues().get(0).capability()).isEqualTo(Resources.builder().set("cpu", 40_000).set(PodShape.GPU, 6).build());
        assertThat(s.queues().get(1).capability()).isNull();

        GangWorkload g = s.gangs().getFirst();
        assertThat(g.namespace()).isEqualTo("ml");
        assertThat(g.size()).isEqualTo(Range.between(2, 8, 1));
        assertThat(g.minMember()).isEqualTo(MinMember.percent(50));
        assertThat(g.shape().cpu()).isEqualTo(Range.between(500, 2000, 100));
        assertThat(g.shape().memory().choices()).containsExactly(1L << 30, 2L << 30);
        assertThat(g.duration()).isEqualTo(new DurationRange(Duration.ofSeconds(30), Duration.ofMinutes(2)));
        assertThat(g.arrival()).isEqualTo(new Arrival(Duration.ofSeconds(10), 0.1));
        PodWorkload p = s.pods().getFirst();
        assertThat(p.namespace()).isEqualTo("default");
        assertThat(p.arrival().perSecond()).isEqualTo(1.0);
    }

    @Test
    void theBuiltInScenarioIsValid() {
        Scenario s = ScenarioReader.builtIn();

        assertThat(s.nodeCount()).isEqualTo(200);
        assertThat(s.queues()).hasSize(3).allMatch(q -> q.state() == QueueState.OPEN && q.capability() != null);
        WorkloadPlan plan = WorkloadPlan.of(s);
        assertThat(plan.gangCount()).isBetween(300, 400);
        assertThat(plan.items()).filteredOn(i -> i instanceof WorkloadPlan.GangArrival)
                .extracting(i -> ((WorkloadPlan.GangArrival) i).pods().size())
                .contains(1, 16).anyMatch(n -> n >= 128).allMatch(n -> n >= 1 && n <= 256);
        assertThat(plan.items()).filteredOn(i -> i instanceof WorkloadPlan.GangArrival)
                .extracting(i -> ((WorkloadPlan.GangArrival) i).podGroup().api()).containsOnly(dev.muster.core.model.GangApi.values());
    }

    static Stream<Arguments> badScenarios() {
        return Stream.of(
                Arguments.of("an unknown optional field", GOOD.replace("    start: 10s", "    begin: 10s"),
                        "gangs[0].begin: unknown field (expected one of: name, namespace, queue, count, size, minMember, cpu, memory, gpu, duration, start, rate, priority, api)"),
                Arguments.of("a misspelt field", GOOD.replace("    size: 2-8", "    sise: 2-8"), "small.yaml:28: gangs[0].sise: unknown field (missing field \"size\": is \"sise\" misspelt?)"),
                Arguments.of("no nodes", "name: x\n", "small.yaml:1: missing field \"nodes\""),
                Arguments.of("a cpu that is not a quantity", GOOD.replace("cpu: 16", "cpu: lots"), "small.yaml:10: nodes[0].cpu: \"lots\" is not a quantity of cpu"),
                Arguments.of("a size range with a word in it", GOOD.replace("size: 2-8", "size: 2-x"),
                        "small.yaml:28: gangs[0].size: \"2-x\" is not a whole number or a range like 8-64"),
                Arguments.of("a range backwards", GOOD.replace("size: 2-8", "size: 8-2"), "gangs[0].size: range \"8-2\" must go from a smaller to a larger number"),
                Arguments.of("a queue that is not defined", GOOD.replace("    queue: ml", "    queue: nope"),
                        "small.yaml:26: gangs[0].queue: queue \"nope\" is not defined under queues (defined: closed, ml)"),
                Arguments.of("a rate without a unit", GOOD.replace("rate: 6/m", "rate: 6"), "gangs[0].rate: \"6\" is not a rate (write arrivals per time unit"),
                Arguments.of("a duration in words", GOOD.replace("duration: 1m", "duration: one minute"),
                        "pods[0].duration: \"one minute\" is not a duration or a range of durations"),
                Arguments.of("minMember over 100%", GOOD.replace("minMember: 50%", "minMember: 150%"),
                        "gangs[0].minMember: \"150%\": a percentage of the gang's size must be 1% to 100%"),
                Arguments.of("broken YAML", GOOD.replace("    count: 4\n", "    count: [4\n"), "small.yaml:10: not valid YAML"),
                Arguments.of("a queue defined twice", GOOD.replace("name: closed", "name: ml"), "queues[1].name: queue \"ml\" is defined twice"),
                Arguments.of("an empty file", "", "small.yaml: the file is empty"),
                Arguments.of("a negative count", GOOD.replace("count: 5", "count: -5"), "gangs[0].count: -5 is out of range (0 to 100000)"),
                Arguments.of("a name with capitals", GOOD.replace("name: train", "name: Train"), "gangs[0].name: \"Train\" is not a valid name"),
                Arguments.of("a queue state that does not exist", GOOD.replace("state: Closed", "state: Sleeping"),
                        "queues[1].state: \"Sleeping\" is not a queue state (Open or Closed)"),
                Arguments.of("a list where a value belongs", GOOD.replace("weight: 2", "weight: [2]"), "queues[0].weight: expected a single value, found a list"),
                Arguments.of("a zero deadline", GOOD.replace("gangDeadline: 30s", "gangDeadline: 0s"), "settings.gangDeadline: must be longer than 0"),
                Arguments.of("a max backoff shorter than the initial one", GOOD.replace("podMaxBackoff: 5s", "podMaxBackoff: 100ms"),
                        "settings.podMaxBackoff: must not be shorter than podInitialBackoff"),
                Arguments.of("a gang API that does not exist", GOOD.replace("    queue: ml\n", "    queue: ml\n    api: yunikorn\n"),
                        "gangs[0].api: \"yunikorn\" is not a gang API (write volcano, kubernetes or scheduler-plugins)"),
                Arguments.of("a speed of zero", GOOD.replace("speed: 15", "speed: 0"), "speed: 0.0 is out of range"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badScenarios")
    void badInputIsRejectedWithWhereAndWhy(String name, String yaml, String message) {
        assertThatThrownBy(() -> ScenarioReader.parse(yaml, "small.yaml"))
                .isInstanceOf(ScenarioException.class)
                .hasMessageContaining(message);
    }

    @Test
    void aMissingFileIsNamed() {
        assertThatThrownBy(() -> ScenarioReader.load(java.nio.file.Path.of("/nonexistent/scenario.yaml")))
                .isInstanceOf(ScenarioException.class).hasMessage("/nonexistent/scenario.yaml: no such file");
    }
}
