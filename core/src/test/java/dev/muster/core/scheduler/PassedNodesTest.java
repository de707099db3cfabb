package dev.muster.core.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.ledger.NodeList;
import dev.muster.core.ledger.NodeNames;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The nodes a filter passed, kept as ids: the same answers as the list of names, whichever form is smaller. */
class PassedNodesTest {
    private static List<String> registered(String prefix, int n) {
        List<String> names = IntStream.range(0, n).mapToObj(i -> prefix + i).toList();
        names.forEach(NodeNames.shared()::id); // the cluster's nodes (the ledger registers them)
        return names;
    }

    @Test
    void oneNodeAndManyNodesAnswerExactlyTheNodesPassed() {
        List<String> cluster = registered("passed-nodes-a-", 300);
        PassedNodes one = PassedNodes.of(List.of(cluster.get(7)));
        assertThat(one.contains(cluster.get(7))).isTrue();
        assertThat(one.contains(cluster.get(8))).isFalse();
        assertThat(one.size()).isOne();

        List<String> every2nd = IntStream.range(0, 300).filter(i -> i % 2 == 0).mapToObj(cluster::get).toList();
        PassedNodes many = PassedNodes.of(NodeList.of(every2nd)); // as the request decoder hands them, ids carried
        for (int i = 0; i < 300; i++) {
            assertThat(many.contains(cluster.get(i))).as(cluster.get(i)).isEqualTo(i % 2 == 0);
        }
        assertThat(many.size()).isEqualTo(150);
        assertThat(many.some(3)).containsExactlyElementsOf(every2nd.subList(0, 3));
        assertThat(many.contains("never-registered")).isFalse();
    }

    @Test
    void aNameWithoutAnIdIsKeptByName() {
        List<String> cluster = registered("passed-nodes-b-", 3);
        List<String> nodes = new ArrayList<>(cluster);
        nodes.add("passed-nodes-unregistered"); // kube-scheduler's informer knew it before Muster's
        PassedNodes p = PassedNodes.of(nodes);
        assertThat(p.contains("passed-nodes-unregistered")).isTrue();
        NodeNames.shared().id("passed-nodes-unregistered"); // registered later: still found
        assertThat(p.contains("passed-nodes-unregistered")).isTrue();
        assertThat(p.contains(cluster.get(2))).isTrue();
        assertThat(p.size()).isEqualTo(4);
        assertThat(p.some(10)).containsExactlyInAnyOrderElementsOf(nodes);
    }
}
