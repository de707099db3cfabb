package dev.muster.core.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The three ways a pod names its gang, which wins, and the conflict when annotation and label disagree. */
class GangMembershipTest {
    private static final Map<String, String> VOLCANO_A = Map.of(GangMembership.GROUP_NAME, "a");
    private static final Map<String, String> LABEL_A = Map.of(GangMembership.POD_GROUP_LABEL, "a");
    private static final Map<String, String> LABEL_B = Map.of(GangMembership.POD_GROUP_LABEL, "b");

    static Stream<Arguments> agreeing() {
        return Stream.of(
                Arguments.of(Named.of("no declaration is a single pod", null), null, null, null),
                Arguments.of(Named.of("Volcano annotation", VOLCANO_A), null, null, "a"),
                Arguments.of(Named.of("Kubernetes schedulingGroup", null), null, "a", "a"),
                Arguments.of(Named.of("scheduler-plugins label", null), LABEL_A, null, "a"),
                Arguments.of(Named.of("all three naming the same group", VOLCANO_A), LABEL_A, "a", "a"),
                Arguments.of(Named.of("the annotation wins over a controller's schedulingGroup", VOLCANO_A), null, "job-made", "a"),
                Arguments.of(Named.of("the label wins over a controller's schedulingGroup", null), LABEL_A, "job-made", "a"),
                Arguments.of(Named.of("empty values name nothing", Map.of(GangMembership.GROUP_NAME, "")),
                        Map.of(GangMembership.POD_GROUP_LABEL, ""), "", null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("agreeing")
    void declarationsThatAgreeNameOneGang(Map<String, String> annotations, Map<String, String> labels, String schedulingGroup,
                                          String expected) {
        GangMembership.Membership m = GangMembership.membershipOf("ns", annotations, labels, schedulingGroup);
        assertThat(m.conflict()).isEmpty();
        assertThat(m.gang()).isEqualTo(expected == null ? null : new GangKey("ns", expected));
    }

    static Stream<Arguments> conflicting() {
        return Stream.of(
                Arguments.of(Named.of("annotation vs label", VOLCANO_A), LABEL_B, null,
                        "\"a\" (annotation scheduling.k8s.io/group-name) and \"b\" (label scheduling.x-k8s.io/pod-group)"),
                Arguments.of(Named.of("annotation vs label, whatever schedulingGroup says", VOLCANO_A), LABEL_B, "a",
                        "\"a\" (annotation scheduling.k8s.io/group-name) and \"b\" (label scheduling.x-k8s.io/pod-group)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("conflicting")
    void declarationsThatDisagreeAreAConflictNamingBoth(Map<String, String> annotations, Map<String, String> labels,
                                                       String schedulingGroup, String named) {
        GangMembership.Membership m = GangMembership.membershipOf("ns", annotations, labels, schedulingGroup);
        assertThat(m.gang()).isNull();
        assertThat(m.conflict()).startsWith("pod names two different groups: ").contains(named);
    }

    @org.junit.jupiter.api.Test
    void onlyTheGroupLabelIsKept() {
        assertThat(GangMembership.relevantLabelsOnly(Map.of("app", "x", GangMembership.POD_GROUP_LABEL, "g")))
                .containsExactly(Map.entry(GangMembership.POD_GROUP_LABEL, "g"));
        assertThat(GangMembership.relevantLabelsOnly(Map.of("app", "x"))).isNull();
    }
}
