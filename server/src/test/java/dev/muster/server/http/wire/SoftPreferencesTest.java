package dev.muster.server.http.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which pods the decoder marks as having soft preferences ({@link WirePod#softPreferences}): those kube-scheduler's
 * own score plugins would weigh, so Muster must not pick their node for them.
 */
class SoftPreferencesTest {
    private static final String PREFERRED_NODE = "'nodeAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':"
            + "[{'weight':1,'preference':{'matchExpressions':[{'key':'zone','operator':'In','values':['a']}]}}]}";
    private static final String REQUIRED_NODE = "'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
            + "{'nodeSelectorTerms':[{'matchExpressions':[{'key':'zone','operator':'In','values':['a']}]}]}}";

    private static Arguments pod(String name, String metadataExtra, String spec, boolean soft) {
        return Arguments.of(name, metadataExtra, spec, soft);
    }

    static Stream<Arguments> pods() {
        return Stream.of(
                pod("a plain pod", "", "", false),
                pod("required node affinity is a filter only", "", "'affinity':{" + REQUIRED_NODE + "}", false),
                pod("preferred node affinity is scored", "", "'affinity':{" + PREFERRED_NODE + "}", true),
                pod("an empty preferred list is nothing", "", "'affinity':{'nodeAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':[]}}", false),
                pod("pod anti-affinity is scored", "", "'affinity':{'podAntiAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
                        + "[{'topologyKey':'kubernetes.io/hostname','labelSelector':{'matchLabels':{'app':'x'}}}]}}", true),
                pod("pod affinity is scored", "", "'affinity':{'podAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':[]}}", true),
                pod("empty pod affinity objects are nothing", "", "'affinity':{'podAffinity':{},'podAntiAffinity':null}", false),
                pod("a hard spread constraint is a filter only", "",
                        "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'zone','whenUnsatisfiable':'DoNotSchedule'}]", false),
                pod("a soft spread constraint is scored", "",
                        "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'zone','whenUnsatisfiable':'DoNotSchedule'},"
                                + "{'maxSkew':1,'topologyKey':'host','whenUnsatisfiable':'ScheduleAnyway'}]", true),
                pod("a Job's pod has no default spreading", ",'ownerReferences':[{'apiVersion':'batch/v1','kind':'Job','name':'j','uid':'j1'}]", "", false),
                pod("a ReplicaSet's pod is spread by default", ",'ownerReferences':[{'apiVersion':'apps/v1','kind':'ReplicaSet','name':'r','uid':'r1'}]", "", true),
                pod("an owner without a kind is nothing", ",'ownerReferences':[{'kind':null,'name':'x','uid':'x1'},{'name':'y'}]", "", false),
                pod("a StatefulSet's pod is spread by default", ",'ownerReferences':[{'kind':'StatefulSet','name':'s','uid':'s1'}]", "", true),
                pod("its own hard constraints replace the default spreading",
                        ",'ownerReferences':[{'kind':'ReplicaSet','name':'r','uid':'r1'}]",
                        "'topologySpreadConstraints':[{'maxSkew':1,'topologyKey':'zone','whenUnsatisfiable':'DoNotSchedule'}]", false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pods")
    void podsWithScoredPreferencesAreMarked(String name, String metadataExtra, String spec, boolean soft) {
        String pod = "{'metadata':{'name':'p','namespace':'ns','uid':'u-1'" + metadataExtra + "},'spec':{" + spec
                + (spec.isEmpty() ? "" : ",") + "'containers':[{'name':'c'}]}}";
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(Bodies.utf8(Bodies.json("{'Pod':" + pod + ",'NodeNames':['n1']}")));

        assertThat(args.pod().softPreferences()).isEqualTo(soft);
    }

    @Test
    void aMistypedAffinityIsAnErrorNamingIt() {
        byte[] body = Bodies.filterWithSpec("'affinity':{'nodeAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':{}}}");

        assertThatThrownBy(() -> WireDecoder.decodeExtenderArgs(body)).isInstanceOf(WireFormatException.class)
                .hasMessageContaining("preferred");
    }

    @Test
    void aContainerRequestingTheGangMarkerMarksThePodAndTheMarkerIsNoRequest() {
        String marked = "{'metadata':{'name':'p','namespace':'ns','uid':'u-1'},'spec':{'containers':[{'name':'a'},"
                + "{'name':'c','resources':{'limits':{'muster.dev/gang':'0'},'requests':{'cpu':'1','muster.dev/gang':'0'}}}]}}";
        String limitsOnly = "{'metadata':{'name':'p','namespace':'ns','uid':'u-1'},'spec':{'containers':[{'name':'c',"
                + "'resources':{'limits':{'muster.dev/gang':'0'}}}],'resources':{'requests':{'cpu':'1'}}}}";
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(Bodies.utf8(Bodies.json("{'Pod':" + marked + ",'NodeNames':['n1']}")));
        ExtenderArgs unmarked = WireDecoder.decodeExtenderArgs(Bodies.utf8(Bodies.json("{'Pod':" + limitsOnly + ",'NodeNames':['n1']}")));

        assertThat(args.pod().gangMarked()).isTrue();
        assertThat(args.pod().pod().request().asMap()).containsEntry("cpu", 1000L).doesNotContainKey("muster.dev/gang");
        assertThat(unmarked.pod().gangMarked()).as("the API server copies limits to requests; a request body without it is unmarked").isFalse();
    }
}
