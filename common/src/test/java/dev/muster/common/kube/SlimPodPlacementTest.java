package dev.muster.common.kube;

import static dev.muster.common.kube.SlimProtoTest.message;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.stream.JsonReader;
import com.google.protobuf.CodedInputStream;
import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.NodeConstraints.Operator;
import dev.muster.core.model.NodeTaint;
import dev.muster.core.model.Pod;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Pod;
import java.io.IOException;
import java.io.StringReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A pending pod's placement fields read from JSON and from protobuf into equal slim pods, and converted into the core's
 * {@link NodeConstraints}; a node's taints kept with their values.
 */
class SlimPodPlacementTest {
    private static final String POD_JSON = """
            {"metadata": {"name": "w-0", "namespace": "ml", "uid": "u1"},
             "spec": {
               "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}},
                               "ports": [{"containerPort": 80}, {"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}]}],
               "nodeSelector": {"kubernetes.io/hostname": "node-2", "disk": "ssd"},
               "affinity": {
                 "nodeAffinity": {
                   "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                     {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]},
                                           {"key": "gpu", "operator": "DoesNotExist"}]},
                     {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-9"]}]}]},
                   "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": {}}]},
                 "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                   {"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "w"}}}]}},
               "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "ml", "effect": "NoSchedule"},
                               {"operator": "Exists"},
                               {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
               "schedulingGates": [{"name": "example.com/quota"}],
               "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}],
               "volumes": [{"name": "cfg", "configMap": {"name": "x"}}, {"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]
             },
             "status": {"phase": "Pending"}}
            """;

    /** The same pod in the API server's protobuf encoding (PodSpec field numbers of k8s.io/api/core/v1/generated.proto). */
    private static byte[] podProto() {
        byte[] term1 = message(t -> {
            t.writeByteArray(1, message(r -> {
                r.writeString(1, "zone");
                r.writeString(2, "In");
                r.writeString(3, "a");
                r.writeString(3, "b");
            }));
            t.writeByteArray(1, message(r -> {
                r.writeString(1, "gpu");
                r.writeString(2, "DoesNotExist");
            }));
        });
        byte[] term2 = message(t -> t.writeByteArray(2, message(r -> {
            r.writeString(1, "metadata.name");
            r.writeString(2, "In");
            r.writeString(3, "node-9");
        })));
        byte[] affinity = message(a -> {
            a.writeByteArray(1, message(na -> {
                na.writeByteArray(1, message(ns -> {
                    ns.writeByteArray(1, term1);
                    ns.writeByteArray(1, term2);
                }));
                na.writeByteArray(2, message(p -> p.writeInt32(1, 1)));
            }));
            a.writeByteArray(3, message(pa -> pa.writeByteArray(1, message(term -> term.writeString(2, "kubernetes.io/hostname")))));
        });
        byte[] spec = message(s -> {
            s.writeByteArray(1, message(v -> {
                v.writeString(1, "cfg");
                v.writeByteArray(2, message(src -> src.writeByteArray(19, message(cm -> cm.writeString(1, "x")))));
            }));
            s.writeByteArray(1, message(v -> {
                v.writeString(1, "data");
                v.writeByteArray(2, message(src -> src.writeByteArray(10, message(pvc -> pvc.writeString(1, "d")))));
            }));
            s.writeByteArray(2, message(c -> {
                c.writeString(1, "c");
                c.writeByteArray(6, message(port -> port.writeInt32(3, 80)));
                c.writeByteArray(6, message(port -> {
                    port.writeInt32(2, 8080);
                    port.writeInt32(3, 8080);
                    port.writeString(4, "TCP");
                }));
                c.writeByteArray(8, message(r -> r.writeByteArray(2, message(e -> {
                    e.writeString(1, "cpu");
                    e.writeByteArray(2, message(q -> q.writeString(1, "1")));
                }))));
            }));
            s.writeByteArray(7, message(e -> {
                e.writeString(1, "kubernetes.io/hostname");
                e.writeString(2, "node-2");
            }));
            s.writeByteArray(7, message(e -> {
                e.writeString(1, "disk");
                e.writeString(2, "ssd");
            }));
            s.writeByteArray(18, affinity);
            s.writeByteArray(22, message(t -> {
                t.writeString(1, "dedicated");
                t.writeString(2, "Equal");
                t.writeString(3, "ml");
                t.writeString(4, "NoSchedule");
            }));
            s.writeByteArray(22, message(t -> {
                t.writeString(1, "");
                t.writeString(2, "Exists");
                t.writeString(3, "");
                t.writeString(4, "");
            }));
            s.writeByteArray(22, message(t -> {
                t.writeString(1, "node.kubernetes.io/not-ready");
                t.writeString(2, "Exists");
                t.writeString(3, "");
                t.writeString(4, "NoExecute");
                t.writeInt64(5, 300);
            }));
            s.writeByteArray(33, message(t -> {
                t.writeInt32(1, 1);
                t.writeString(2, "zone");
                t.writeString(3, "ScheduleAnyway");
            }));
            s.writeByteArray(38, message(g -> g.writeString(1, "example.com/quota")));
        });
        return message(p -> {
            p.writeByteArray(1, message(m -> {
                m.writeString(1, "w-0");
                m.writeString(3, "ml");
                m.writeString(5, "u1");
            }));
            p.writeByteArray(2, spec);
            p.writeByteArray(3, message(st -> st.writeString(1, "Pending")));
        });
    }

    private static V1Pod fromJson(String json) throws IOException {
        return SlimPodJson.readPod(new JsonReader(new StringReader(json)));
    }

    @Test
    void protobufAndJsonGiveTheSameSlimPod() throws IOException {
        V1Pod json = fromJson(POD_JSON);
        V1Pod proto = SlimPodProto.readPod(CodedInputStream.newInstance(podProto()));
        assertThat(proto).isEqualTo(json);
        assertThat(json.getSpec().getVolumes()).as("only volumes only kube-scheduler judges are kept").hasSize(1);
        assertThat(json.getSpec().getTopologySpreadConstraints()).as("ScheduleAnyway only scores").isNullOrEmpty();
        assertThat(json.getSpec().getContainers().getFirst().getPorts()).as("only ports that take a port of the node")
                .extracting(io.kubernetes.client.openapi.models.V1ContainerPort::getHostPort).containsExactly(8080);
    }

    @Test
    void thePendingPodsConstraintsReachTheCore() throws IOException {
        Pod pod = PodConverter.toCore(fromJson(POD_JSON));
        NodeConstraints c = pod.constraints();

        assertThat(c.nodeSelector()).containsExactlyInAnyOrderEntriesOf(Map.of("kubernetes.io/hostname", "node-2", "disk", "ssd"));
        assertThat(c.requiredTerms()).hasSize(2);
        assertThat(c.requiredTerms().getFirst().matchExpressions()).containsExactly(
                new NodeConstraints.Requirement("zone", Operator.IN, List.of("a", "b")),
                new NodeConstraints.Requirement("gpu", Operator.DOES_NOT_EXIST, List.of()));
        assertThat(c.requiredTerms().get(1).matchFields()).containsExactly(
                new NodeConstraints.Requirement("metadata.name", Operator.IN, List.of("node-9")));
        assertThat(c.tolerations()).containsExactly(
                new NodeConstraints.Toleration("dedicated", "Equal", "ml", "NoSchedule"),
                new NodeConstraints.Toleration("", "Exists", "", ""),
                new NodeConstraints.Toleration("node.kubernetes.io/not-ready", "Exists", "", "NoExecute"));
        assertThat(c.schedulingGates()).containsExactly("example.com/quota");
        assertThat(c.gated()).isTrue();
        assertThat(c.undecided()).isEqualTo("inter-pod anti-affinity, persistent volumes, host ports");
    }

    @Test
    void aPodWithoutConstraintsSharesTheEmptyOneAndABoundPodKeepsNone() throws IOException {
        assertThat(PodConverter.toCore(fromJson("""
                {"metadata": {"name": "p", "uid": "u2"}, "spec": {"containers": []}}""")).constraints()).isSameAs(NodeConstraints.NONE);
        V1Pod bound = fromJson(POD_JSON.replace("\"nodeSelector\"", "\"nodeName\": \"node-2\", \"nodeSelector\""));
        assertThat(bound.getSpec().getNodeSelector()).isNull();
        assertThat(bound.getSpec().getAffinity()).isNull();
        assertThat(bound.getSpec().getTolerations()).isNull();
        assertThat(bound.getSpec().getContainers().getFirst().getPorts()).isNull();
        assertThat(PodConverter.toCore(bound).constraints()).isSameAs(NodeConstraints.NONE);
    }

    @Test
    void aNodeKeepsItsTaintsWithTheirValues() throws IOException {
        V1Node node = SlimNodeJson.readNode(new JsonReader(new StringReader("""
                {"metadata": {"name": "n1"}, "spec": {"taints": [
                  {"key": "dedicated", "value": "ml", "effect": "NoSchedule"},
                  {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2026-01-01T00:00:00Z"},
                  {"key": "spot", "effect": "PreferNoSchedule"}]}}""")));
        assertThat(NodeConstraintsConverter.filteringTaints(node.getSpec().getTaints())).containsExactly(
                new NodeTaint("dedicated", "ml", NodeTaint.NO_SCHEDULE), new NodeTaint("node.kubernetes.io/unreachable", "", NodeTaint.NO_EXECUTE));
        byte[] proto = message(n -> n.writeByteArray(2, message(s -> {
            s.writeByteArray(5, message(t -> {
                t.writeString(1, "dedicated");
                t.writeString(2, "ml");
                t.writeString(3, "NoSchedule");
            }));
            s.writeByteArray(5, message(t -> {
                t.writeString(1, "node.kubernetes.io/unreachable");
                t.writeString(2, "");
                t.writeString(3, "NoExecute");
            }));
            s.writeByteArray(5, message(t -> {
                t.writeString(1, "spot");
                t.writeString(2, "");
                t.writeString(3, "PreferNoSchedule");
            }));
        })));
        assertThat(SlimNodeProto.readNode(CodedInputStream.newInstance(proto)).getSpec()).isEqualTo(node.getSpec());
    }
}
