package dev.muster.demo.scenario;

import dev.muster.core.model.QueueSpec;
import java.util.List;
import java.util.Objects;

/**
 * A demo scenario: the cluster (node groups, Queues) and the workload that arrives on it. Immutable; built by
 * {@link ScenarioReader}.
 */
public record Scenario(String name, long seed, Settings settings, List<NodeGroup> nodes, List<QueueSpec> queues,
                       List<GangWorkload> gangs, List<PodWorkload> pods) {
    public Scenario {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(settings, "settings");
        nodes = List.copyOf(nodes);
        queues = List.copyOf(queues);
        gangs = List.copyOf(gangs);
        pods = List.copyOf(pods);
    }

    public Scenario withSpeed(double speed) {
        return new Scenario(name, seed, settings.withSpeed(speed), nodes, queues, gangs, pods);
    }

    public int nodeCount() {
        return nodes.stream().mapToInt(NodeGroup::count).sum();
    }
}
