package dev.muster.core.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeListTest {
    @Test
    void namesAddedByIdAreTheSharedTablesStringsAndUnknownNamesTheirOwn() {
        int id = NodeNames.shared().id("list-test-known");
        NodeList list = new NodeList.Builder(1).add(id).add("list-test-unknown").build();

        assertThat(list).containsExactly("list-test-known", "list-test-unknown");
        assertThat(list.get(0)).isSameAs(NodeNames.shared().nameOf(id));
        assertThat(list.id(0)).isEqualTo(id);
        assertThat(list.id(1)).isEqualTo(NodeNames.NONE);
        assertThat(list.asciiSource()).as("names added without their bytes").isNull();
    }

    @Test
    void namesAddedFromOneArrayKeepWhereTheirBytesAre() {
        int id = NodeNames.shared().id("list-test-a");
        byte[] body = "[\"list-test-a\",\"list-test-new\"]".getBytes(StandardCharsets.US_ASCII);

        NodeList list = new NodeList.Builder(1).addAscii(id, body, 2, 11).addAscii(NodeNames.NONE, body, 16, 13).build();

        assertThat(list).containsExactly("list-test-a", "list-test-new");
        assertThat(list.asciiSource()).isSameAs(body);
        assertThat(List.of(list.asciiStart(0), list.asciiLength(0), list.asciiStart(1), list.asciiLength(1))).containsExactly(2, 11, 16, 13);
        assertThat(NodeNames.shared().find("list-test-new")).as("an unknown name registers nothing").isEqualTo(NodeNames.NONE);
    }

    @Test
    void aNameWithoutItsBytesOrFromAnotherArrayDropsTheSource() {
        byte[] body = "\"list-test-b\"".getBytes(StandardCharsets.US_ASCII);
        byte[] other = body.clone();

        assertThat(new NodeList.Builder(1).addAscii(NodeNames.NONE, body, 1, 11).add("x").build().asciiSource()).isNull();
        assertThat(new NodeList.Builder(1).add("x").addAscii(NodeNames.NONE, body, 1, 11).build().asciiSource()).isNull();
        NodeList mixed = new NodeList.Builder(1).addAscii(NodeNames.NONE, body, 1, 11).addAscii(NodeNames.NONE, other, 1, 11).build();
        assertThat(mixed.asciiSource()).isNull();
        assertThat(mixed).containsExactly("list-test-b", "list-test-b");
        assertThat(new NodeList.Builder(0).build().asciiSource()).isNull();
    }
}
