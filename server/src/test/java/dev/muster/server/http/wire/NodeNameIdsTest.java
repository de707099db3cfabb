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

    /**
     * Plain ASCII names are looked up in the body's bytes; a list with an escape, a non-ASCII name or odd spacing
     * anywhere is read token by token. Both give the same names and ids, and a bad element is the same error.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {
            "['ids-a','ids-b','ids-unknown']",
            " [ 'ids-a' ,\n\t'ids-b' , 'ids-unknown' ] ",
            "['ids-a','ids\\u002db','ids-unknown']",
            "['\\u0069ds-a','ids-b','ids-unknown']",
            "['ids-a','ids-b','ids-unknown'\r\n]"})
    void asciiAndEscapedListsDecodeToTheSameNamesAndIds(String list) {
        int a = NodeNames.shared().id("ids-a");
        int b = NodeNames.shared().id("ids-b");

        NodeList names = (NodeList) WireDecoder.decodeExtenderArgs(utf8(json("{'Pod':" + Bodies.POD.formatted("") + ",'NodeNames':" + list + "}")))
                .nodeNames();

        assertThat(names).containsExactly("ids-a", "ids-b", "ids-unknown");
        assertThat(new int[] {names.id(0), names.id(1), names.id(2)}).containsExactly(a, b, NodeNames.NONE);
    }

    /**
     * Once a list has taught which name follows which, a later list is matched against those guesses: a string that
     * starts like the guess but goes on, carries an escape or is cut off still decodes (or fails) as it would without.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
            "['ids-f-a','ids-f-b','ids-f-c'] | ids-f-a,ids-f-b,ids-f-c",
            "['ids-f-a','ids-f-bb','ids-f-c'] | ids-f-a,ids-f-bb,ids-f-c",
            "['ids-f-a','ids-f-b\\u0078','ids-f-c'] | ids-f-a,ids-f-bx,ids-f-c",
            "['ids-f-a','ids-f-','ids-f-c'] | ids-f-a,ids-f-,ids-f-c",
            "['ids-f-a','ids-f-c','ids-f-b'] | ids-f-a,ids-f-c,ids-f-b"})
    void aLaterListDecodesWhateverFollowedLastTime(String list, String expected) {
        NodeNames.shared().id("ids-f-a");
        NodeNames.shared().id("ids-f-b");
        NodeNames.shared().id("ids-f-c");
        String taught = "{'Pod':" + Bodies.POD.formatted("") + ",'NodeNames':['ids-f-a','ids-f-b','ids-f-c']}";
        WireDecoder.decodeExtenderArgs(utf8(json(taught)));

        NodeList names = (NodeList) WireDecoder.decodeExtenderArgs(utf8(json("{'Pod':" + Bodies.POD.formatted("") + ",'NodeNames':" + list + "}")))
                .nodeNames();

        assertThat(names).containsExactly(expected.split(","));
        for (int i = 0; i < names.size(); i++) {
            assertThat(names.id(i)).isEqualTo(NodeNames.shared().find(names.get(i)));
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> WireDecoder.decodeExtenderArgs(utf8(json(
                        "{'Pod':" + Bodies.POD.formatted("") + ",'NodeNames':['ids-f-a','ids-f-b"))))
                .isInstanceOf(WireFormatException.class);
    }

    @Test
    void aNonAsciiNameIsReadWhole() {
        NodeList names = (NodeList) WireDecoder.decodeExtenderArgs(utf8(json("{'Pod':" + Bodies.POD.formatted("") + ",'NodeNames':['ids-a','nöde','']}")))
                .nodeNames();

        assertThat(names).containsExactly("ids-a", "nöde", "");
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"['ids-a',null]", "['ids-a',7]", "['ids-a' 'ids-b']", "['ids-a',]", "['ids-a'"})
    void aListThatIsNotAllStringsIsRefusedAsBefore(String list) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> WireDecoder.decodeExtenderArgs(utf8(json(
                        "{'Pod':" + Bodies.POD.formatted("") + ",'NodeNames':" + list + "}"))))
                .isInstanceOf(WireFormatException.class);
    }

    /** The names end the body (the scan reads it to the end), come first, or are followed by more keys: all decode alike. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {
            "{'Pod':%s,'Nodes':null,'NodeNames':['ids-a','ids-b']}",
            "{'Pod':%s,'Nodes':null,'NodeNames':['ids-a','ids-b']} \n",
            "{'NodeNames':['ids-a','ids-b'],'Pod':%s}",
            "{'Pod':%s,'NodeNames':['ids-a','ids-b'],'Nodes':null,'Extra':{'NodeNames':[1]}}"})
    void namesDecodeWhereverTheyStandInTheBody(String body) {
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(utf8(json(body.formatted(Bodies.POD.formatted("")))));

        assertThat(args.nodeNames()).containsExactly("ids-a", "ids-b");
        assertThat(args.pod()).isNotNull();
    }

    /** What follows a names list that ends the object is still checked: trailing data, a second object, a repeated key. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
            "{'Pod':%s,'NodeNames':['ids-a']} x          | trailing data",
            "{'Pod':%s,'NodeNames':['ids-a']}}           | trailing data",
            "{'Pod':%s,'NodeNames':['ids-a']]}           | ",
            "{'Pod':%s,'NodeNames':['ids-a'],'NodeNames':['ids-b']} | NodeNames"})
    void whatFollowsTheNamesIsStillChecked(String body, String named) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> WireDecoder.decodeExtenderArgs(utf8(json(body.formatted(Bodies.POD.formatted(""))))))
                .isInstanceOf(WireFormatException.class)
                .hasMessageContaining(named == null ? "" : named);
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
