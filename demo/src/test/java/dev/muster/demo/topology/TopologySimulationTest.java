package dev.muster.demo.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.demo.scenario.ScenarioException;
import dev.muster.demo.scenario.TopologyScenario;
import dev.muster.demo.scenario.TopologyScenarioReader;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TopologySimulationTest {
    static final String SMALL = """
            name: small
            seed: 7
            sampleEvery: 1m
            cluster: {blocks: 2, racksPerBlock: 2, nodesPerRack: 4, cpu: 32, memory: 128Gi}
            gangs:
              - name: train
                count: 40
                size: 2-12
                cpu: 8
                memory: 8Gi
                duration: 3m-10m
                rate: 2/m
                topology: required:rack
              - name: etl
                count: 40
                size: 1-6
                cpu: 4
                memory: 4Gi
                duration: 1m-5m
                rate: 2/m
            """;

    @Test
    void awareRunKeepsEveryRequiredRackGangInOneRackAndBothRunsPlayTheSameGangs() {
        TopologyScenario s = TopologyScenarioReader.parse(SMALL, "small.yaml");
        TopologySimulation.Run aware = TopologySimulation.run(s, true);
        TopologySimulation.Run unaware = TopologySimulation.run(s, false);

        assertThat(aware.gangs()).allMatch(TopologySimulation.GangResult::started);
        assertThat(unaware.gangs()).allMatch(TopologySimulation.GangResult::started);
        assertThat(aware.gangs().stream().map(g -> g.name() + "/" + g.size() + "/" + g.arriveNanos()).toList())
                .isEqualTo(unaware.gangs().stream().map(g -> g.name() + "/" + g.size() + "/" + g.arriveNanos()).toList());
        assertThat(aware.gangs()).filteredOn(g -> g.name().startsWith("train-")).hasSize(40).allMatch(g -> g.racks() == 1);
        // without the constraint the same gangs land across racks
        assertThat(unaware.gangs()).filteredOn(g -> g.name().startsWith("train-")).anyMatch(g -> g.racks() > 1);
        assertThat(aware.samples()).isNotEmpty().allMatch(x -> x.freeWholeRacks() >= 0 && x.freeWholeRacks() <= s.racks());
        assertThat(aware.samples().getFirst().freeWholeRacks()).isEqualTo(4);

        String report = TopologyReport.render(s, aware, unaware);
        assertThat(report).contains("gangs started", "80/80", "train        required:rack          1 rack: 40   /", "Free whole racks over time (of 4)");
    }

    @Test
    void sameSeedSameResult() {
        TopologyScenario s = TopologyScenarioReader.parse(SMALL, "small.yaml");
        assertThat(TopologySimulation.run(s, true)).isEqualTo(TopologySimulation.run(s, true));
    }

    @Test
    void builtInScenarioReads() {
        TopologyScenario s = TopologyScenarioReader.builtIn();
        assertThat(s.nodeCount()).isEqualTo(128);
        assertThat(s.gangs()).extracting(TopologyScenario.Gangs::name).isEqualTo(List.of("train", "wide", "etl"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "topology: near:rack | small.yaml:13: gangs[0].topology: \"near:rack\" is not a topology request",
            "topology: required:row | topology level \"row\" is not one of block, rack, host",
            "colour: red | colour"})
    void badGangFieldsAreNamed(String line, String message) {
        String yaml = SMALL.replace("    topology: required:rack", "    " + line);
        assertThatThrownBy(() -> TopologyScenarioReader.parse(yaml, "small.yaml")).isInstanceOf(ScenarioException.class)
                .hasMessageContaining(message);
    }
}
