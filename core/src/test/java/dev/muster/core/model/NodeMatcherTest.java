package dev.muster.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.NodeConstraints.Operator;
import dev.muster.core.model.NodeConstraints.Requirement;
import dev.muster.core.model.NodeConstraints.Term;
import dev.muster.core.model.NodeConstraints.Toleration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** kube-scheduler's NodeAffinity and TaintToleration filters, case by case, as {@link NodeMatcher} judges them. */
class NodeMatcherTest {
    private static final String NODE = "node-1";
    private static final Map<String, String> LABELS = Map.of("kubernetes.io/hostname", "node-1", "zone", "a", "disk", "ssd",
            "cores", "16");

    record Case(String name, NodeConstraints constraints, List<NodeTaint> taints, boolean admitted) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static NodeConstraints selector(Map<String, String> s) {
        return new NodeConstraints(s, null, List.of(), List.of(), "");
    }

    private static NodeConstraints affinity(Term... terms) {
        return new NodeConstraints(Map.of(), List.of(terms), List.of(), List.of(), "");
    }

    private static Term expr(Requirement... r) {
        return new Term(List.of(r), List.of());
    }

    private static Requirement req(String key, Operator op, String... values) {
        return new Requirement(key, op, List.of(values));
    }

    private static NodeConstraints tolerating(Toleration... t) {
        return new NodeConstraints(Map.of(), null, List.of(t), List.of(), "");
    }

    private static final NodeTaint GPU = new NodeTaint("gpu", "true", NodeTaint.NO_SCHEDULE);
    private static final NodeTaint DRAIN = new NodeTaint("drain", "", NodeTaint.NO_EXECUTE);

    static Stream<Case> cases() {
        return Stream.of(
                new Case("no constraints, no taints", NodeConstraints.NONE, List.of(), true),
                new Case("nodeSelector matches", selector(Map.of("zone", "a", "disk", "ssd")), List.of(), true),
                new Case("nodeSelector: one pair differs", selector(Map.of("zone", "a", "disk", "hdd")), List.of(), false),
                new Case("nodeSelector: label absent", selector(Map.of("gpu", "true")), List.of(), false),
                new Case("hostname selector of another node", selector(Map.of("kubernetes.io/hostname", "node-2")), List.of(), false),
                new Case("In matches", affinity(expr(req("zone", Operator.IN, "a", "b"))), List.of(), true),
                new Case("In: value not listed", affinity(expr(req("zone", Operator.IN, "b"))), List.of(), false),
                new Case("In: label absent", affinity(expr(req("rack", Operator.IN, "r1"))), List.of(), false),
                new Case("NotIn: value listed", affinity(expr(req("zone", Operator.NOT_IN, "a"))), List.of(), false),
                new Case("NotIn: label absent matches", affinity(expr(req("rack", Operator.NOT_IN, "r1"))), List.of(), true),
                new Case("Exists", affinity(expr(req("disk", Operator.EXISTS))), List.of(), true),
                new Case("Exists: absent", affinity(expr(req("gpu", Operator.EXISTS))), List.of(), false),
                new Case("DoesNotExist", affinity(expr(req("gpu", Operator.DOES_NOT_EXIST))), List.of(), true),
                new Case("DoesNotExist: present", affinity(expr(req("disk", Operator.DOES_NOT_EXIST))), List.of(), false),
                new Case("Gt: 16 > 8", affinity(expr(req("cores", Operator.GT, "8"))), List.of(), true),
                new Case("Gt: 16 > 16 is false", affinity(expr(req("cores", Operator.GT, "16"))), List.of(), false),
                new Case("Lt: 16 < 32", affinity(expr(req("cores", Operator.LT, "32"))), List.of(), true),
                new Case("Gt on a non-integer label", affinity(expr(req("zone", Operator.GT, "1"))), List.of(), false),
                new Case("Gt with a non-integer value", affinity(expr(req("cores", Operator.GT, "x"))), List.of(), false),
                new Case("unknown operator matches nothing", affinity(expr(req("zone", Operator.UNKNOWN, "a"))), List.of(), false),
                new Case("expressions are ANDed", affinity(expr(req("zone", Operator.IN, "a"), req("disk", Operator.IN, "hdd"))), List.of(), false),
                new Case("terms are ORed", affinity(expr(req("zone", Operator.IN, "b")), expr(req("disk", Operator.IN, "ssd"))), List.of(), true),
                new Case("an empty term matches nothing", affinity(new Term(List.of(), List.of())), List.of(), false),
                new Case("no terms match nothing", affinity(), List.of(), false),
                new Case("matchFields metadata.name In", affinity(new Term(List.of(), List.of(req("metadata.name", Operator.IN, NODE)))), List.of(), true),
                new Case("matchFields metadata.name NotIn", affinity(new Term(List.of(), List.of(req("metadata.name", Operator.NOT_IN, NODE)))), List.of(), false),
                new Case("matchFields on another field", affinity(new Term(List.of(), List.of(req("spec.x", Operator.IN, NODE)))), List.of(), false),
                new Case("expressions and fields ANDed", affinity(new Term(List.of(req("zone", Operator.IN, "a")),
                        List.of(req("metadata.name", Operator.IN, "node-2")))), List.of(), false),
                new Case("selector and affinity both apply", new NodeConstraints(Map.of("zone", "b"),
                        List.of(expr(req("disk", Operator.EXISTS))), List.of(), List.of(), ""), List.of(), false),
                new Case("untolerated NoSchedule excludes", NodeConstraints.NONE, List.of(GPU), false),
                new Case("untolerated NoExecute excludes", NodeConstraints.NONE, List.of(DRAIN), false),
                new Case("Equal with the value tolerates", tolerating(new Toleration("gpu", "Equal", "true", "NoSchedule")), List.of(GPU), true),
                new Case("empty operator means Equal", tolerating(new Toleration("gpu", "", "true", "")), List.of(GPU), true),
                new Case("Equal with another value", tolerating(new Toleration("gpu", "Equal", "false", "")), List.of(GPU), false),
                new Case("Exists on the key", tolerating(new Toleration("gpu", "Exists", "", "")), List.of(GPU), true),
                new Case("effect must match", tolerating(new Toleration("gpu", "Exists", "", "NoExecute")), List.of(GPU), false),
                new Case("empty key with Exists tolerates all", tolerating(new Toleration("", "Exists", "", "")), List.of(GPU, DRAIN), true),
                new Case("one of two taints untolerated", tolerating(new Toleration("gpu", "Exists", "", "")), List.of(GPU, DRAIN), false),
                new Case("unknown toleration operator", tolerating(new Toleration("gpu", "Gt", "1", "")), List.of(GPU), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void judgesAsKubeSchedulerDoes(Case c) {
        assertThat(NodeMatcher.admits(c.constraints(), NODE, LABELS, c.taints())).isEqualTo(c.admitted());
        assertThat(NodeMatcher.whyNot(c.constraints(), NODE, LABELS, c.taints()) == null).isEqualTo(c.admitted());
    }

    @Test
    void refusalsNameTheConstraint() {
        assertThat(NodeMatcher.whyNot(selector(Map.of("kubernetes.io/hostname", "node-2")), NODE, LABELS, List.of()))
                .isEqualTo("node node-1 does not match the pod's nodeSelector (kubernetes.io/hostname=node-2)");
        assertThat(NodeMatcher.whyNot(affinity(expr(req("zone", Operator.IN, "b"))), NODE, LABELS, List.of()))
                .isEqualTo("node node-1 does not match the pod's required node affinity (zone In [b])");
        assertThat(NodeMatcher.whyNot(NodeConstraints.NONE, NODE, LABELS, List.of(GPU)))
                .isEqualTo("node node-1 has taint gpu=true:NoSchedule that the pod does not tolerate");
    }

    @Test
    void preferNoScheduleIsNoFilteringTaint() {
        assertThat(NodeTaint.filters(NodeTaint.PREFER_NO_SCHEDULE)).isFalse();
        assertThatThrownBy(() -> new NodeTaint("k", "", NodeTaint.PREFER_NO_SCHEDULE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NoSchedule or NoExecute");
    }

    @Test
    void gatesAndUndecidedAreReported() {
        NodeConstraints c = new NodeConstraints(Map.of(), null, List.of(), List.of("example.com/wait"), "inter-pod anti-affinity");
        assertThat(c.gated()).isTrue();
        assertThat(c.hasUndecided()).isTrue();
        assertThat(NodeConstraints.NONE.gated()).isFalse();
        assertThat(new NodeConstraints(null, null, null, null, null).orNone()).isSameAs(NodeConstraints.NONE);
    }
}
