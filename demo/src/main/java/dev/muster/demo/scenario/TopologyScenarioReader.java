package dev.muster.demo.scenario;

import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import dev.muster.demo.scenario.YamlTree.Obj;
import dev.muster.demo.scenario.YamlTree.Val;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads a {@link TopologyScenario} from YAML. Every problem is a {@link ScenarioException} naming the file, the line
 * and the field. Stateless; thread-safe.
 */
public final class TopologyScenarioReader {
    public static final String BUILT_IN = "/scenarios/topology.yaml";

    private TopologyScenarioReader() {}

    public static TopologyScenario builtIn() {
        try (InputStream in = TopologyScenarioReader.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException("the built-in scenario " + BUILT_IN + " is missing from the classpath");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "topology.yaml (built in)");
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the built-in topology scenario", e);
        }
    }

    public static TopologyScenario load(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (NoSuchFileException e) {
            throw new ScenarioException(file.toString(), 0, "", "no such file");
        } catch (IOException e) {
            throw new ScenarioException(file.toString(), 0, "", "cannot read: " + e.getMessage());
        }
    }

    public static TopologyScenario parse(String yaml, String source) {
        Obj root = YamlTree.parse(yaml, source);
        String name = root.optional("name") == null ? "unnamed" : root.optional("name").nonEmptyText();
        long seed = root.optional("seed") == null ? 1 : root.optional("seed").whole(Long.MIN_VALUE, Long.MAX_VALUE);
        ScoringPolicy scoring = ScoringPolicy.BINPACK;
        if (root.optional("scoring") != null) {
            Val v = root.optional("scoring");
            try {
                scoring = ScoringPolicy.parse(v.nonEmptyText());
            } catch (IllegalArgumentException e) {
                throw v.error(e.getMessage());
            }
        }
        Obj cluster = root.required("cluster").obj();
        int blocks = (int) cluster.required("blocks").whole(1, 1_000);
        int racksPerBlock = (int) cluster.required("racksPerBlock").whole(1, 1_000);
        int nodesPerRack = (int) cluster.required("nodesPerRack").whole(1, 1_000);
        if ((long) blocks * racksPerBlock * nodesPerRack > 20_000) {
            throw cluster.error("blocks × racksPerBlock × nodesPerRack must be at most 20000 nodes");
        }
        Resources node = Resources.builder()
                .set(ResourceNames.CPU, ScenarioReader.quantity(cluster.required("cpu"), ResourceNames.CPU))
                .set(ResourceNames.MEMORY, ScenarioReader.quantity(cluster.required("memory"), ResourceNames.MEMORY))
                .set(ResourceNames.PODS, 110).build();
        cluster.done();
        Duration sampleEvery = Duration.ofMinutes(1);
        if (root.optional("sampleEvery") != null) {
            DurationRange d = ScenarioReader.durationRange(root.optional("sampleEvery"));
            if (d.min().isZero() || !d.min().equals(d.max())) {
                throw root.optional("sampleEvery").error("must be one positive duration, e.g. 1m");
            }
            sampleEvery = d.min();
        }
        List<TopologyScenario.Gangs> gangs = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Val v : root.required("gangs").list()) {
            Obj o = v.obj();
            String gangName = ScenarioReader.label(o.required("name"));
            if (!names.add(gangName)) {
                throw o.required("name").error("workload \"" + gangName + "\" is defined twice");
            }
            int count = (int) o.required("count").whole(0, 100_000);
            Range size = ScenarioReader.countRange(o.required("size"), 1, 10_000);
            PodShape shape = ScenarioReader.shape(o);
            DurationRange duration = ScenarioReader.durationRange(o.required("duration"));
            Arrival arrival = ScenarioReader.arrival(o);
            TopologyRequest topology = o.optional("topology") == null ? null : topology(o.optional("topology"));
            o.done();
            gangs.add(new TopologyScenario.Gangs(gangName, count, size, shape, duration, arrival, topology));
        }
        root.done();
        return new TopologyScenario(name, seed, scoring, blocks, racksPerBlock, nodesPerRack, node, sampleEvery, gangs);
    }

    /** {@code required:rack}, {@code preferred:block}, …: a mode and one of the levels block, rack, host. */
    private static TopologyRequest topology(Val v) {
        String text = v.nonEmptyText();
        int colon = text.indexOf(':');
        String mode = colon < 0 ? "" : text.substring(0, colon).strip();
        String level = colon < 0 ? "" : text.substring(colon + 1).strip();
        TopologyRequest.Mode m = switch (mode) {
            case "required" -> TopologyRequest.Mode.REQUIRED;
            case "preferred" -> TopologyRequest.Mode.PREFERRED;
            default -> throw v.error("\"" + text + "\" is not a topology request (write required:<level> or preferred:<level>, "
                    + "level one of block, rack, host)");
        };
        String key = switch (level) {
            case "block" -> TopologyScenario.BLOCK_LABEL;
            case "rack" -> TopologyScenario.RACK_LABEL;
            case "host" -> TopologyScenario.HOST_LABEL;
            default -> throw v.error("topology level \"" + level + "\" is not one of block, rack, host");
        };
        return TopologyRequest.byKey(m, key);
    }
}
