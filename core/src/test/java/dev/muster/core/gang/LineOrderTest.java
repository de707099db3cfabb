package dev.muster.core.gang;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LineOrderTest {
    private static Gang gang(String name, String queue, int priority, long arrival) {
        GangKey key = new GangKey("ml", name);
        Gang g = new Gang(key, arrival);
        g.podGroupSeen(PodGroupSpec.of(key, 1, queue));
        g.place.priority = priority;
        return g;
    }

    private static List<String> drain(LineOrder order) {
        List<String> names = new ArrayList<>();
        while (!order.isEmpty()) {
            names.add(order.poll().key().name());
        }
        assertThat(order.poll()).isNull();
        return names;
    }

    @Test
    void withinAQueueHigherPriorityThenOlderWhateverTheOrderGiven() {
        List<Gang> gangs = List.of(gang("young", "a", 0, 3), gang("old", "a", 0, 1), gang("urgent", "a", 100, 5), gang("middle", "a", 0, 2));
        assertThat(drain(LineOrder.of(gangs, q -> 0))).containsExactly("urgent", "old", "middle", "young");
    }

    @Test
    void acrossQueuesEachStepReadsTheRatiosAsTheyStandThen() {
        // each gang taken from a queue raises that queue's ratio by one (as admitting it would): the queues interleave
        Map<String, Double> ratio = new HashMap<>(Map.of("a", 0.0, "b", 0.5));
        List<Gang> gangs = List.of(gang("a1", "a", 0, 1), gang("a2", "a", 0, 2), gang("a3", "a", 0, 3), gang("b1", "b", 0, 4), gang("b2", "b", 0, 5));
        LineOrder order = LineOrder.of(gangs, ratio::get);
        List<String> names = new ArrayList<>();
        while (!order.isEmpty()) {
            Gang g = order.poll();
            names.add(g.key().name());
            ratio.merge(g.queue(), 1.0, Double::sum);
        }
        assertThat(names).containsExactly("a1", "b1", "a2", "b2", "a3");
    }

    @Test
    void priorityComesBeforeTheQueuesRatio() {
        List<Gang> gangs = List.of(gang("under", "a", 0, 1), gang("over-but-urgent", "b", 10, 2));
        assertThat(drain(LineOrder.of(gangs, q -> q.equals("a") ? 0.1 : 5.0))).containsExactly("over-but-urgent", "under");
    }

    @Test
    void nothingWaitingIsEmptyAndPollsNothing() {
        assertThat(drain(LineOrder.of(List.of(), q -> 0))).isEmpty();
    }
}
