package dev.muster.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.Pod;
import dev.muster.proto.v1.Container;
import dev.muster.proto.v1.PodRef;
import dev.muster.proto.v1.PodSpec;
import org.junit.jupiter.api.Test;

/** A gRPC verb's pod carries its preemption terms, read as the cluster's and the HTTP verbs' pods are. */
class ProtoPodsTest {
    private static PodSpec.Builder spec() {
        return PodSpec.newBuilder().setPod(PodRef.newBuilder().setUid("u-1").setNamespace("ns").setName("p"))
                .addContainers(Container.newBuilder().putRequests("cpu", "1"));
    }

    @Test
    void nothingSaidMayPreemptWithKubernetesDefaultGrace() {
        Pod pod = ProtoPods.toPod(spec().build());
        assertThat(pod.neverPreempts()).isFalse();
        assertThat(pod.graceSeconds()).isEqualTo(Pod.DEFAULT_GRACE_SECONDS);
    }

    @Test
    void neverAndAGracePeriodAreRead() {
        Pod pod = ProtoPods.toPod(spec().setPreemptionPolicy("Never").setTerminationGracePeriodSeconds(0).build());
        assertThat(pod.neverPreempts()).isTrue();
        assertThat(pod.graceSeconds()).as("an explicit zero is zero, not the default").isZero();
        assertThat(ProtoPods.toPod(spec().setPreemptionPolicy("PreemptLowerPriority").setTerminationGracePeriodSeconds(90).build()))
                .satisfies(p -> {
                    assertThat(p.neverPreempts()).isFalse();
                    assertThat(p.graceSeconds()).isEqualTo(90);
                });
    }

    @Test
    void theNominatedNodeIsRead() {
        assertThat(ProtoPods.toPod(spec().setNominatedNodeName("n2").build()).nominatedNodeName()).isEqualTo("n2");
        assertThat(ProtoPods.toPod(spec().build()).nominated()).isFalse();
    }

    @Test
    void anUnknownPolicyIsAnErrorNamingTheField() {
        assertThatThrownBy(() -> ProtoPods.toPod(spec().setPreemptionPolicy("never").build())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pod.preemption_policy").hasMessageContaining("\"never\"");
    }
}
