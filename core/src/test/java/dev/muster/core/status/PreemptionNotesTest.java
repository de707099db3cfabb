package dev.muster.core.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import dev.muster.core.stream.AllocationEvent.PreemptionDecided;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PreemptionNotesTest {
    private static final GangKey BIG = new GangKey("ml", "train-big");

    /** {@code n} pods of {@code gang} (null: single pods) in {@code queue}. */
    static List<Victim> victims(String gang, String queue, int n) {
        List<Victim> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String name = (gang == null ? "single" : gang) + "-" + i;
            out.add(new Victim(new PodId(name, "ml", name), gang == null ? null : new GangKey("ml", gang), queue, 10, "node-" + i,
                    FoldDriver.cpu(1000)));
        }
        return out;
    }

    @SafeVarargs
    static PreemptionDecided decided(PreemptionKind kind, int nodes, List<Victim>... groups) {
        List<Victim> all = new ArrayList<>();
        for (List<Victim> g : groups) {
            all.addAll(g);
        }
        return new PreemptionDecided(BIG, "b", 1000, kind, all, nodes);
    }

    static Stream<Arguments> preemptorNotes() {
        return Stream.of(
                Arguments.of("two gangs and single pods", decided(PreemptionKind.PRIORITY, 3, victims("low-a", "a", 8), victims("low-b", "a", 2),
                        victims(null, "", 3)), "preempting 2 gangs (10 pods) and 3 pods on 3 nodes"),
                Arguments.of("one gang, one node", decided(PreemptionKind.PRIORITY, 1, victims("low-a", "a", 1)),
                        "preempting 1 gang (1 pod) on 1 node"),
                Arguments.of("single pods only", decided(PreemptionKind.PRIORITY, 2, victims(null, "", 2)), "preempting 2 pods on 2 nodes"),
                Arguments.of("reclaim from one queue", decided(PreemptionKind.RECLAIM, 3, victims("low-a", "a", 8), victims("low-b", "a", 2)),
                        "reclaiming 2 gangs (10 pods) from queue a on 3 nodes"),
                Arguments.of("reclaim from two queues", decided(PreemptionKind.RECLAIM, 2, victims("x", "c", 1), victims("y", "a", 1)),
                        "reclaiming 2 gangs (2 pods) from queues a, c on 2 nodes"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("preemptorNotes")
    void thePreemptorIsToldWhatItTakes(String name, PreemptionDecided p, String note) {
        assertThat(PreemptionNotes.preemptor(p)).isEqualTo(note);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("victimNotes")
    void aVictimIsToldWhoTookItsRoom(String name, PreemptionDecided p, int toPlace, String note) {
        assertThat(PreemptionNotes.victim(p, toPlace, 3)).isEqualTo(note);
    }

    static Stream<Arguments> victimNotes() {
        return Stream.of(
                Arguments.of("priority", decided(PreemptionKind.PRIORITY, 3, victims("low-a", "a", 3)), 8,
                        "preempted by ml/train-big (priority 1000) to place 8 pods; evicting 3 of its pods"),
                Arguments.of("reclaim", decided(PreemptionKind.RECLAIM, 3, victims("low-a", "a", 3)), 1,
                        "reclaimed by queue b for ml/train-big (priority 1000) to place 1 pod; evicting 3 of its pods"),
                Arguments.of("pods to place unknown", decided(PreemptionKind.PRIORITY, 3, victims("low-a", "a", 3)), 0,
                        "preempted by ml/train-big (priority 1000); evicting 3 of its pods"));
    }
}
