package dev.muster.demo.scenario;

import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A topology scenario ({@code muster-demo topology}, format in {@code docs/demo.md}): a racked cluster of
 * {@code blocks × racksPerBlock × nodesPerRack} identical nodes and gang workloads that ask for a topology level.
 * Immutable; built by {@link TopologyScenarioReader}.
 */
public record TopologyScenario(String name, long seed, ScoringPolicy scoring, int blocks, int racksPerBlock, int nodesPerRack,
                               Resources node, Duration sampleEvery, List<Gangs> gangs) {
    /** Label keys of the levels, widest first: block, rack, hostname. */
    public static final String BLOCK_LABEL = "demo.muster.dev/block";
    public static final String RACK_LABEL = "demo.muster.dev/rack";
    public static final String HOST_LABEL = "kubernetes.io/hostname";
    public static final List<String> LEVELS = List.of(BLOCK_LABEL, RACK_LABEL, HOST_LABEL);

    public TopologyScenario {
        Objects.requireNonNull(name, "name");
        gangs = List.copyOf(gangs);
    }

    /** {@code count} gangs of {@code size} members, each member {@code shape}, asking for {@code topology} (null: none). */
    public record Gangs(String name, int count, Range size, PodShape shape, DurationRange duration, Arrival arrival, TopologyRequest topology) {}

    public int racks() {
        return blocks * racksPerBlock;
    }

    public int nodeCount() {
        return racks() * nodesPerRack;
    }
}
