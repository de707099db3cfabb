package dev.muster.server.http.wire;

import static dev.muster.server.http.wire.Bodies.json;
import static dev.muster.server.http.wire.Bodies.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.ledger.NodeList;
import dev.muster.core.ledger.NodeNames;
import org.junit.jupiter.api.Test;

/** The decoder hands the core its candidates with their node-name ids, and a request's names register nothing. */
class NodeNameIdsTest {
    @Test
    void candidatesCarryTheIdsOfRegisteredNamesAndUnknownNamesStayUnregistered() {
        int known = NodeNames.shared().id("ids-test-node-1"); // as the ledger registers a node it has seen
        String unknown = "ids-test-never-seen-" + System.nanoTime();

        ExtenderArgs args = WireDecoder.decodeExtenderArgs(utf8(json(
                "{'Pod':" + Bodies.POD.formatted("") + ",'NodeNames':['ids-test-node-1','" + unknown + "']}")));

        assertThat(args.nodeNames()).containsExactly("ids-test-node-1", unknown).isInstanceOf(NodeList.class);
        NodeList names = (NodeList) args.nodeNames();
        assertThat(names.id(0)).isEqualTo(known);
        assertThat(names.get(0)).isSameAs(NodeNames.shared().nameOf(known)); // no String built for a known name
        assertThat(names.id(1)).isEqualTo(NodeNames.NONE);
        assertThat(NodeNames.shared().find(unknown)).as("a request's name is not remembered").isEqualTo(NodeNames.NONE);
    }

    @Test
    void listsOfChangingLengthDecodeWhole() {
        for (int n : new int[] {300, 3, 0, 40, 1_000}) {
            StringBuilder names = new StringBuilder();
            for (int i = 0; i < n; i++) {
                names.append(i == 0 ? "" : ",").append("'len-").append(i).append("'");
            }
            ExtenderArgs args = WireDecoder.decodeExtenderArgs(utf8(json("{'Pod':" + Bodies.POD.formatted("") + ",'NodeNames':[" + names + "]}")));
            assertThat(args.nodeNames()).hasSize(n);
            if (n > 0) {
                assertThat(args.nodeNames().getFirst()).isEqualTo("len-0");
                assertThat(args.nodeNames().getLast()).isEqualTo("len-" + (n - 1));
            }
        }
    }
}
